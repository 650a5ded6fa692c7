#!/usr/bin/env bash
# Records a held-out test set ONCE (never re-recorded, never used to choose a mechanism):
#   bash calibration/reference/record_test.sh
# A workload that differs from the development set (record.sh): eight other tasks, one per
# category, and half the pool (a unified 2,048-cell KV pool), with the same machine set-up
# otherwise (real llama-server, SmolLM2-135M, managed, one thread per server, the cloud
# stand-in, the replay agent on synthesised trajectories), LO/CO/HCL/HLL at C = 1, 2, 4, 8.
# The server profile of the same settings is recorded after the sweep (record_test_profile.sh).
# Runs at nice -10 (root): the machine is shared with other work while it records.
set -euo pipefail
cd "$(dirname "$0")/../.."
AGBENCH="${AGBENCH:-.venv/bin/agbench}"
HERE=calibration/reference/test-pool2048
TASKS=(lf-backup-diff rt-anthem-composer-town calc-fuel-consumption off-budget-variance
       mm-dtmf-voicemail sci-drug-levels sys-photo-sync-unit term-archive-notes)
args=()
for t in "${TASKS[@]}"; do args+=(--task "$t"); done

mkdir -p "$HERE"
rm -rf "$HERE/run"
git rev-parse HEAD > "$HERE/recorded_at_commit.txt"
uptime > "$HERE/load_before.txt"
"$AGBENCH" trajectories synth "${args[@]}" -o "$HERE/trajectories.jsonl"
nice -n -10 "$AGBENCH" sweep --agent replay --trajectories "$HERE/trajectories.jsonl" \
  --archs LO,CO,HCL,HLL --concurrency 1,2,4,8 "${args[@]}" \
  --local-ctx 2048 --local-kv-unified --local-threads 1 --out "$HERE/run" --quiet
cp "$HERE/trajectories.jsonl" "$HERE/run/trajectories.jsonl"
uptime > "$HERE/load_after.txt"
rm -rf "$HERE/run/journal" "$HERE/run/traces/parts" "$HERE/run/raw_responses.jsonl" "$HERE/run/logs" \
  "$HERE/run/llama-server.log" "$HERE/run/timeline.json"
rm -rf "calibration/reference/latest" "runs/latest"
du -sh "$HERE"
