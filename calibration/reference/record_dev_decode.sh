#!/usr/bin/env bash
# Records the decode-heavy development set, with one command:
#   bash calibration/reference/record_dev_decode.sh            # run/, then profile/ (afresh)
#   bash calibration/reference/record_dev_decode.sh --repeat   # run-2/: the same sweep again
# Every other recorded set, development or test, replays turns of this-machine.toml's shape
# (replies of 24-32 tokens), so its calls are mostly prompt reading and how decoding scales
# with batch and context was never checked against a sweep. Here the development run's eight
# tasks replay token-profiles/long-replies.toml (replies of 64-128 tokens and one exploration
# turn first) on a one-thread server with an 8,192-cell unified pool, LO/CO/HCL/HLL at
# C = 1, 2, 4; the full server profile (--parallel 4, the highest level) is measured after the
# sweep, in the same boot. A development set: looked at while the model is judged and changed.
# Record it on an otherwise idle machine (Linux autogroup gives every session an equal share
# of the cores, whatever its nice value).
set -euo pipefail
cd "$(dirname "$0")/../.."
AGBENCH="${AGBENCH:-.venv/bin/agbench}"
HERE=calibration/reference/dev-decode
REF=$HERE  # record_sweep replays REF/trajectories.jsonl: this set's own
CTX=8192
TASKS=(lf-largest-downloads rt-router-admin-port calc-loan-annuity off-expense-report
       mm-playlist-from-tags sci-sensor-calibration sys-cron-backup term-error-summary)
source calibration/reference/sweep_recording.sh

choose_recording "${1:-}"
if [ "$RUN" = run ]; then
  args=()
  for t in "${TASKS[@]}"; do args+=(--task "$t"); done
  "$AGBENCH" trajectories synth --profile calibration/reference/token-profiles/long-replies.toml \
    "${args[@]}" -o "$HERE/trajectories.jsonl"
fi
record_sweep 1,2,4 --local-ctx "$CTX" --local-kv-unified --local-threads 1
if [ "$RUN" = run ]; then
  { date -u +%FT%TZ; uptime; } > "$HERE/profile.load_before.txt"
  nice -n -10 "$AGBENCH" profile-server --repeats 2 --ctx "$CTX" --kv-unified --threads 1 \
    --parallel 4 --out "$HERE/profile" --quiet
  { date -u +%FT%TZ; uptime; } > "$HERE/profile.load_after.txt"
  rm -f "$HERE/profile"/llama-server*.log
  cp "$HERE/profile/server_profile.toml" "$HERE/server_profile.toml"
fi
du -sh "$HERE"
