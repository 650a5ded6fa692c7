#!/usr/bin/env bash
# The development set's server profile (record.sh's server settings: SmolLM2-135M, a unified
# 4,096-cell pool, one thread, up to eight slots), for the profile + C = 1 protocol:
#   bash calibration/reference/record_dev_profile.sh
# The full grid (prompts to 1,024 tokens, three background sizes: the quick grid's 320-token
# context range is far below the workload's) with two repetitions (their drift is the noise floor
# the intervals use). Record it right after record.sh, on the same machine: a profile
# calibrates only the host and load it was measured under. Runs at nice -10 (root) so that other work on the machine, at nice 19, yields to it.
set -euo pipefail
cd "$(dirname "$0")/../.."
AGBENCH="${AGBENCH:-.venv/bin/agbench}"
HERE=calibration/reference/dev-profile
rm -rf "$HERE"
mkdir -p "$HERE"
git rev-parse HEAD > "$HERE/recorded_at_commit.txt"
{ date -u +%FT%TZ; uptime; } > "$HERE/load_before.txt"
nice -n -10 "$AGBENCH" profile-server --repeats 2 --ctx 4096 --kv-unified --threads 1 \
  --parallel 8 --out "$HERE" --quiet
{ date -u +%FT%TZ; uptime; } > "$HERE/load_after.txt"
rm -f "$HERE/llama-server.log"
