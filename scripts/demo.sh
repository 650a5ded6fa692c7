#!/usr/bin/env bash
# The main job on its embedded defaults (what `make demo` runs), on this machine:
#   1. a replay-agent sweep (real llama-server load, real tools, decisions from synthesised
#      trajectories) over LO/CO/HCL/HLL at C = 1 and 2, with a cloud stand-in;
#   2. a short real-model sweep next to it (SmolLM2 deciding; it solves almost nothing here);
#   3. agbench calibrate on the replay sweep;
#   4. agbench sim of the calibrated device up to C = 16 on the same trajectories (16 tasks:
#      the 4 run live and the next 12 of the same seeded order);
#   5. one report with live and simulated configurations side by side.
set -euo pipefail
cd "$(dirname "$0")/.."
AGBENCH="${AGBENCH:-.venv/bin/agbench}"
OUT="${DEMO_OUT:-runs/demo-$(date -u +%Y%m%dT%H%M%SZ)}"
LIMIT="${DEMO_LIMIT:-4}"          # tasks run live
SIM_TASKS="${DEMO_SIM_TASKS:-16}"  # tasks simulated (the same seeded order; a superset of the live ones)
mkdir -p "$OUT"
step() { printf '\n== %s ==\n' "$*" >&2; }

step "1/5 synthesising replay trajectories for $SIM_TASKS tasks"
"$AGBENCH" trajectories synth --limit "$SIM_TASKS" -o "$OUT/trajectories.jsonl"

step "2/5 live replay sweep: LO,CO,HCL,HLL x C=1,2 (managed llama-server, bubblewrap sandboxes)"
"$AGBENCH" sweep --agent replay --trajectories "$OUT/trajectories.jsonl" --archs LO,CO,HCL,HLL \
  --concurrency 1,2 --limit "$LIMIT" --out "$OUT/live-replay"

step "3/5 live model sweep: SmolLM2 decides (LO,HLL x C=1, 2 tasks, 60 s per task)"
"$AGBENCH" sweep --agent model --archs LO,HLL --concurrency 1 --limit 2 --time-limit 60 \
  --max-tokens 128 --out "$OUT/live-model"

step "4/5 calibrating the simulator on the replay sweep"
"$AGBENCH" calibrate "$OUT/live-replay" --fit-concurrency 1,2 -o "$OUT/profile.toml"

step "5/5 simulating the calibrated device on $SIM_TASKS tasks up to C=16; the side-by-side report"
"$AGBENCH" sim --scenario this-machine-smollm2 --profile "$OUT/profile.toml" --trajectories "$OUT/trajectories.jsonl" \
  --archs LO,CO,HCL,HLL --concurrency 1,2,4,8,16 --out "$OUT/sim"
"$AGBENCH" report "$OUT/live-replay" "$OUT/live-model" "$OUT/sim" --out "$OUT/comparison" >/dev/null

printf '\nreport: %s\n' "$OUT/comparison/summary.html"
