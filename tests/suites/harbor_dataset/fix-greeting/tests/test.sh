#!/bin/bash
mkdir -p /logs/verifier
out_a="$(bash greet.sh Ada 2>/dev/null)"
out_b="$(bash greet.sh 'Grace Hopper' 2>/dev/null)"
if [ "$out_a" = "Hello, Ada!" ] && [ "$out_b" = "Hello, Grace Hopper!" ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
