#!/bin/bash
awk '{s += $1} END {print s}' /opt/readings/meter.txt > sum.txt
