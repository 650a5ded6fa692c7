#!/usr/bin/env bash
# The server profile of the test set's server settings (record_test.sh: SmolLM2-135M, a unified
# 2,048-cell pool, one thread, up to eight slots), recorded once:
#   bash calibration/reference/record_test_profile.sh
# The smallest grid (--quick: batch 1 and 8, prompts of 64 and 512 tokens, one background size)
# with two repetitions (the drift between them is the noise floor the intervals use).
# Runs at nice -10 (root): the machine is shared with other work while it records.
set -euo pipefail
cd "$(dirname "$0")/../.."
AGBENCH="${AGBENCH:-.venv/bin/agbench}"
HERE=calibration/reference/test-pool2048
mkdir -p "$HERE"
git rev-parse HEAD > "$HERE/profile_recorded_at_commit.txt"
uptime > "$HERE/profile_load_before.txt"
nice -n -10 "$AGBENCH" profile-server --quick --repeats 2 --ctx 2048 --kv-unified --threads 1 --parallel 8 \
  --out "$HERE/profile"
cp "$HERE/profile/server_profile.toml" "$HERE/server_profile.toml"
rm -f "$HERE/profile/llama-server.log"
uptime > "$HERE/profile_load_after.txt"
