#!/usr/bin/env bash
# Re-records the second validation workload, where SmolLM2 itself decides (`--agent model`):
#   bash calibration/reference/record_model.sh
# The same machine set-up as record.sh (real llama-server, SmolLM2-135M, managed, one thread per
# server, a 4,096-token unified KV pool, the cloud stand-in), the model agent on the same eight
# tasks, LO/CO/HCL/HLL, C = 1, 2, 4, 8. Each turn may generate 256 tokens and each task has 240 s
# (SmolLM2 answers in a few turns; the bounds keep a rambling turn from taking minutes).
# Greedy sampling with a fixed seed: at the server's default temperature the same task's first
# answer was 18, 256 and 85 tokens long at C = 1, 2 and 4, so C = 1's trajectories could not
# stand for C = 4 and 8 whatever the simulator did.
# The held-out protocol then needs the agent's behaviour as trajectories: they are extracted
# from the run itself (`agbench trajectories extract`, one attempt per task and architecture,
# the lowest concurrency first) into run/trajectories.jsonl, where `agbench validate` looks.
# Record it on an otherwise idle machine: other load changes the rates.
set -euo pipefail
cd "$(dirname "$0")/../.."
AGBENCH="${AGBENCH:-.venv/bin/agbench}"
HERE=calibration/reference/model
TASKS=(lf-largest-downloads rt-router-admin-port calc-loan-annuity off-expense-report
       mm-playlist-from-tags sci-sensor-calibration sys-cron-backup term-error-summary)
args=()
for t in "${TASKS[@]}"; do args+=(--task "$t"); done

rm -rf "$HERE"
"$AGBENCH" sweep --agent model --archs LO,CO,HCL,HLL --concurrency 1,2,4,8 "${args[@]}" \
  --local-ctx 4096 --local-kv-unified --local-threads 1 --max-tokens 256 --time-limit 240 \
  --temperature 0 --seed 0 \
  --out "$HERE" --quiet
"$AGBENCH" trajectories extract "$HERE" -o "$HERE/trajectories.jsonl"
rm -rf "$HERE/journal" "$HERE/traces/parts" "$HERE/raw_responses.jsonl" "$HERE/logs" "$HERE/llama-server.log" \
  "$HERE/timeline.json"
rm -rf "$(dirname "$HERE")/latest"  # the run's "latest" copy
du -sh "$HERE"
