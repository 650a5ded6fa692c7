#!/usr/bin/env bash
# Records the large-pool development set, with one command:
#   bash calibration/reference/record_dev_pool8192.sh            # profile-quick/, run/, profile/ (afresh)
#   bash calibration/reference/record_dev_pool8192.sh --repeat   # run-2/: the same sweep again, nothing else
# The development run's eight tasks and trajectories (record.sh) on a one-thread server with an
# 8,192-cell unified pool (twice the development run's), LO/CO/HCL/HLL at C = 1, 2, 4, 8. In one
# session: the quick server profile, the sweep, then the full profile (server_profile.toml,
# the protocol's). Why both grids: the quick grid measures decode to a few thousand KV tokens
# and a sweep on this pool reaches twice that, so whether a quick profile may stand in for the
# full one beyond 4,096 cells is judged here, on a development set, and not on a test set.
# Record it on an otherwise idle machine: nice does not protect it from other sessions (Linux
# autogroup gives every session an equal share of the cores, whatever its nice value).
set -euo pipefail
cd "$(dirname "$0")/../.."
AGBENCH="${AGBENCH:-.venv/bin/agbench}"
REF=calibration/reference
HERE=$REF/dev-pool8192
CTX=8192
TASKS=(lf-largest-downloads rt-router-admin-port calc-loan-annuity off-expense-report
       mm-playlist-from-tags sci-sensor-calibration sys-cron-backup term-error-summary)
source "$REF/sweep_recording.sh"

# record_profile NAME [--quick]: HERE/NAME/ and the machine's load before and after
record_profile() {
  local name=$1
  shift
  { date -u +%FT%TZ; uptime; } > "$HERE/$name.load_before.txt"
  nice -n -10 "$AGBENCH" profile-server "$@" --repeats 2 --ctx "$CTX" --kv-unified --threads 1 \
    --parallel 8 --out "$HERE/$name" --quiet
  { date -u +%FT%TZ; uptime; } > "$HERE/$name.load_after.txt"
  rm -f "$HERE/$name"/llama-server*.log
}

choose_recording "${1:-}"
if [ "$RUN" = run ]; then
  record_profile profile-quick --quick
fi
record_sweep 1,2,4,8 --local-ctx "$CTX" --local-kv-unified --local-threads 1
if [ "$RUN" = run ]; then
  record_profile profile
  cp "$HERE/profile/server_profile.toml" "$HERE/server_profile.toml"
fi
du -sh "$HERE"
