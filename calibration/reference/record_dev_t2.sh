#!/usr/bin/env bash
# Records the two-thread development set, with one command:
#   bash calibration/reference/record_dev_t2.sh            # profile/ + run/ (starts the set afresh)
#   bash calibration/reference/record_dev_t2.sh --repeat   # run-2/: the same sweep again, nothing else
#   bash calibration/reference/record_dev_t2.sh --profile  # profile/ again (new probes), nothing else
# The development run's eight tasks and trajectories (record.sh) on a two-thread server, so the
# server's threads need both cores: a 4,096-cell unified pool, LO/CO/HCL/HLL at C = 1, 2, 4,
# its full server profile first (with the probe whose busy loop runs in a session of its own,
# as every sandboxed tool does). A development set: the CPU-group mechanism is judged on it;
# the second recording gives its noise floor between recordings.
# Record it on an otherwise idle machine: nice does not protect it from other sessions (Linux
# autogroup gives every session an equal share of the cores, whatever its nice value).
set -euo pipefail
cd "$(dirname "$0")/../.."
AGBENCH="${AGBENCH:-.venv/bin/agbench}"
REF=calibration/reference
HERE=$REF/dev-t2
TASKS=(lf-largest-downloads rt-router-admin-port calc-loan-annuity off-expense-report
       mm-playlist-from-tags sci-sensor-calibration sys-cron-backup term-error-summary)
source "$REF/sweep_recording.sh"

record_profile() {
  { date -u +%FT%TZ; uptime; } > "$HERE/profile.load_before.txt"
  nice -n -10 "$AGBENCH" profile-server --repeats 2 --ctx 4096 --kv-unified --threads 2 \
    --parallel 8 --out "$HERE/profile" --quiet
  { date -u +%FT%TZ; uptime; } > "$HERE/profile.load_after.txt"
  cp "$HERE/profile/server_profile.toml" "$HERE/server_profile.toml"
  rm -f "$HERE"/profile/llama-server*.log
}

if [ "${1:-}" = "--profile" ]; then
  test -d "$HERE/run" || { echo "record run/ first (no --profile): no $HERE/run" >&2; exit 1; }
  rm -rf "$HERE/profile"
  git rev-parse HEAD > "$HERE/profile.recorded_at_commit.txt"
  record_profile
  du -sh "$HERE/profile"
  exit 0
fi

choose_recording "${1:-}"
if [ "$RUN" = run ]; then
  record_profile
fi
record_sweep 1,2,4 --local-ctx 4096 --local-kv-unified --local-threads 2
du -sh "$HERE"
