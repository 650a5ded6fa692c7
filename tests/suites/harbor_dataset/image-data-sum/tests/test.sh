#!/bin/bash
mkdir -p /logs/verifier
if [ -f sum.txt ] && [ "$(tr -d '[:space:]' < sum.txt 2>/dev/null)" = "1040" ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
