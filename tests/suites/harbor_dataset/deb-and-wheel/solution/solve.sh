#!/bin/bash
set -e
echo "pv $(pv --version | head -1 | awk '{print $2}')" > versions.txt
echo "six $(python3 -I -c 'import six; print(six.__version__)')" >> versions.txt
