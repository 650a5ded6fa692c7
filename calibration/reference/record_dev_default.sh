#!/usr/bin/env bash
# Records the default-settings development set, with one command:
#   bash calibration/reference/record_dev_default.sh
# A replay sweep with the runner's default server: one slot per task (slots = C, so the server
# restarts every level), a 4,096-cell pool per slot (not unified), one thread. Six tasks (the
# suite's first six in seed 3's order, synthesised trajectories), LO/CO/HCL/HLL at C = 1, 2, 4,
# then the quick server profile at C = 4's settings (the rates are per token and per batch, the
# same at every level). Recorded at 07:09-07:22 UTC 2026-12-07 from the commit in
# recorded_at_commit.txt, after the kept server and the slot's context edge (385ded5): the
# settings a first sweep uses, never recorded before (every other set has a unified pool or a
# fixed slot count). A development set; one recording, no noise floor.
set -euo pipefail
cd "$(dirname "$0")/../.."
AGBENCH="${AGBENCH:-.venv/bin/agbench}"
HERE=calibration/reference/dev-default
rm -rf "$HERE"
mkdir -p "$HERE"
git rev-parse HEAD > "$HERE/recorded_at_commit.txt"
"$AGBENCH" trajectories synth --limit 6 --seed 3 -o "$HERE/trajectories.jsonl"
"$AGBENCH" sweep --agent replay --trajectories "$HERE/trajectories.jsonl" --archs LO,CO,HCL,HLL \
  --concurrency 1,2,4 --limit 6 --seed 3 --local-threads 1 --out "$HERE/run" --quiet
"$AGBENCH" profile-server --quick --ctx 16384 --threads 1 --parallel 4 --quiet --out "$HERE/profile"
cp "$HERE/profile/server_profile.toml" "$HERE/server_profile.toml"
rm -rf "$HERE/run/journal" "$HERE/run/traces/parts" "$HERE/run/raw_responses.jsonl" "$HERE/run/logs" \
  "$HERE/run/timeline.json" "$HERE"/profile/llama-server*.log
rm -rf calibration/reference/latest runs/latest
du -sh "$HERE"
