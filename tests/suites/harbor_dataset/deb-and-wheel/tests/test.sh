#!/bin/bash
# Reward 1 when versions.txt names the installed pv and six and the inputs are untouched.
mkdir -p /logs/verifier
expected="pv $(pv --version 2>/dev/null | head -1 | awk '{print $2}')
six $(python3 -I -c 'import six; print(six.__version__)' 2>/dev/null)"
reward=0
if [ -f versions.txt ] && [ "$(cat versions.txt 2>/dev/null)" = "$expected" ] \
   && [ "$expected" = "pv 1.6.20
six 1.17.0" ] && sha256sum -c --quiet /tests/inputs.sha256; then
  reward=1
fi
echo "$reward" > /logs/verifier/reward.txt
