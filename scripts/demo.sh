#!/usr/bin/env bash
# The main job on its embedded defaults (what `make demo` runs), on this machine, the way the
# README documents it (a server profile plus the C = 1 run calibrate the simulator):
#   1. a replay-agent sweep (real llama-server load, real tools, decisions from synthesised
#      trajectories) over LO/CO/HCL/HLL at C = 1 and 2, with a cloud stand-in;
#   2. the same server alone: agbench profile-server, its quick grid (minutes; a real
#      calibration takes the full grid, about seventeen minutes here);
#   3. a short real-model sweep next to it (SmolLM2 deciding; it solves almost nothing here);
#   4. agbench calibrate: server rates from the profile, agent behaviour from C = 1 alone;
#      agbench validate then scores the C = 2 it never saw;
#   5. agbench sim of the calibrated device up to C = 16 on the same trajectories (16 tasks:
#      the 4 run live and the next 12 of the same seeded order), and one report with live and
#      simulated configurations side by side.
set -euo pipefail
cd "$(dirname "$0")/.."
AGBENCH="${AGBENCH:-.venv/bin/agbench}"
OUT="${DEMO_OUT:-runs/demo-$(date -u +%Y%m%dT%H%M%SZ)}"
LIMIT="${DEMO_LIMIT:-4}"          # tasks run live
SIM_TASKS="${DEMO_SIM_TASKS:-16}"  # tasks simulated (the same seeded order; a superset of the live ones)
mkdir -p "$OUT"
step() { printf '\n== %s ==\n' "$*" >&2; }

# The sweep's server and its profile share settings: one thread, a unified pool of 4,096 cells.
SERVER=(--local-ctx 4096 --local-kv-unified --local-threads 1)

step "1/6 synthesising replay trajectories for $SIM_TASKS tasks"
"$AGBENCH" trajectories synth --limit "$SIM_TASKS" -o "$OUT/trajectories.jsonl"

step "2/6 live replay sweep: LO,CO,HCL,HLL x C=1,2 (managed llama-server, bubblewrap sandboxes)"
"$AGBENCH" sweep --agent replay --trajectories "$OUT/trajectories.jsonl" --archs LO,CO,HCL,HLL \
  --concurrency 1,2 --limit "$LIMIT" "${SERVER[@]}" --out "$OUT/live-replay"

step "3/6 the server alone: profile-server, quick grid, the sweep's settings and largest slot count"
"$AGBENCH" profile-server --quick --ctx 4096 --kv-unified --threads 1 --parallel 2 --quiet \
  --out "$OUT/server-profile"

step "4/6 live model sweep: SmolLM2 decides (LO,HLL x C=1, 2 tasks, 60 s per task)"
"$AGBENCH" sweep --agent model --archs LO,HLL --concurrency 1 --limit 2 --time-limit 60 \
  --max-tokens 128 --out "$OUT/live-model"

step "5/6 calibrating on the server profile and C=1; validating on the C=2 it did not see"
"$AGBENCH" calibrate "$OUT/live-replay" --server-profile "$OUT/server-profile/server_profile.toml" \
  --fit-concurrency 1 -o "$OUT/profile.toml"
"$AGBENCH" validate --calibration "$OUT/profile.toml" "$OUT/live-replay" --draws 5 --out "$OUT/validation"

step "6/6 simulating the calibrated device on $SIM_TASKS tasks up to C=16; the side-by-side report"
"$AGBENCH" sim --scenario this-machine-smollm2 --calibration "$OUT/profile.toml" \
  --trajectories "$OUT/trajectories.jsonl" --archs LO,CO,HCL,HLL --concurrency 1,2,4,8,16 --out "$OUT/sim"
"$AGBENCH" report "$OUT/live-replay" "$OUT/live-model" "$OUT/sim" --out "$OUT/comparison" >/dev/null

printf '\nvalidation (C = 2 held out): %s\n' "$OUT/validation/validation.json"
printf 'report: %s\n' "$OUT/comparison/summary.html"
