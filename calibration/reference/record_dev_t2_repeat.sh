#!/usr/bin/env bash
# Records dev-t2's second recording (run-2/), the same sweep as record_dev_t2.sh's run/ and
# nothing else, so the development set has a noise floor between recordings:
#   bash calibration/reference/record_dev_t2_repeat.sh
# Record it on an otherwise idle machine (nice does not protect it from other sessions).
set -euo pipefail
cd "$(dirname "$0")/../.."
AGBENCH="${AGBENCH:-.venv/bin/agbench}"
REF=calibration/reference
HERE=$REF/dev-t2
TASKS=(lf-largest-downloads rt-router-admin-port calc-loan-annuity off-expense-report
       mm-playlist-from-tags sci-sensor-calibration sys-cron-backup term-error-summary)
args=()
for t in "${TASKS[@]}"; do args+=(--task "$t"); done
test -d "$HERE/run" || { echo "record_dev_t2.sh first: no $HERE/run" >&2; exit 1; }
rm -rf "$HERE/run-2"
git rev-parse HEAD > "$HERE/run-2.recorded_at_commit.txt"
{ date -u +%FT%TZ; uptime; } > "$HERE/run-2.load_before.txt"
nice -n -10 "$AGBENCH" sweep --agent replay --trajectories "$REF/trajectories.jsonl" \
  --archs LO,CO,HCL,HLL --concurrency 1,2,4 "${args[@]}" \
  --local-ctx 4096 --local-kv-unified --local-threads 2 --out "$HERE/run-2" --quiet
{ date -u +%FT%TZ; uptime; } > "$HERE/run-2.load_after.txt"
cp "$REF/trajectories.jsonl" "$HERE/run-2/trajectories.jsonl"
rm -rf "$HERE/run-2/journal" "$HERE/run-2/traces/parts" "$HERE/run-2/raw_responses.jsonl" "$HERE/run-2/logs" \
  "$HERE/run-2/llama-server.log" "$HERE/run-2/timeline.json"
rm -rf "$REF/latest" runs/latest
du -sh "$HERE/run-2"
