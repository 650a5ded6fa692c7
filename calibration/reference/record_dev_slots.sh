#!/usr/bin/env bash
# Records the per-slot development set, with one command:
#   bash calibration/reference/record_dev_slots.sh
# A llama-server whose KV cache is one pool per slot (not unified: 3 slots of 1,024 cells, a
# 3,072-cell context), its slot count fixed (--local-parallel 3), so the sweep keeps ONE server
# through every level: what a configuration left in the slots and the prompt cache is there
# when the next starts. Four tasks (the suite's first four in the seeded order, synthesised
# trajectories), LO and HLL at C = 1, 2, 3, the quick server profile after the sweep.
# Recorded as it was first run by hand, at 05:38-05:47 UTC 2026-12-07, from the commit in
# recorded_at_commit.txt, while looking for what a workload unlike the reference sets would
# show; the two mechanisms it showed (a reply cut at the slot's end is a context error; a
# configuration on a kept server starts from what the last one left) were built on it, so it
# is a development set. One recording: no noise floor.
set -euo pipefail
cd "$(dirname "$0")/../.."
AGBENCH="${AGBENCH:-.venv/bin/agbench}"
HERE=calibration/reference/dev-slots
rm -rf "$HERE"
mkdir -p "$HERE"
git rev-parse HEAD > "$HERE/recorded_at_commit.txt"
"$AGBENCH" trajectories synth --limit 4 -o "$HERE/trajectories.jsonl"
"$AGBENCH" sweep --agent replay --trajectories "$HERE/trajectories.jsonl" --archs LO,HLL \
  --concurrency 1,2,3 --limit 4 --local-ctx 3072 --local-parallel 3 --local-threads 1 \
  --out "$HERE/run" --quiet
"$AGBENCH" profile-server --quick --ctx 3072 --threads 1 --parallel 3 --quiet --out "$HERE/profile"
cp "$HERE/profile/server_profile.toml" "$HERE/server_profile.toml"
rm -rf "$HERE/run/journal" "$HERE/run/traces/parts" "$HERE/run/raw_responses.jsonl" "$HERE/run/logs" \
  "$HERE/run/timeline.json" "$HERE"/profile/llama-server*.log
rm -rf calibration/reference/latest runs/latest
du -sh "$HERE"
