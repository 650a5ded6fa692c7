# The steps the development sets' recording scripts share (record_dev_t2.sh,
# record_dev_pool8192.sh): sourced, not run. The caller sets AGBENCH, REF, HERE and TASKS.

# choose_recording [--repeat]: RUN=run, the set afresh (HERE emptied), or RUN=run-2, the same
# sweep again beside run/; each records the commit it was recorded from.
choose_recording() {
  if [ "${1:-}" = "--repeat" ]; then
    test -d "$HERE/run" || { echo "record run/ first (no --repeat): no $HERE/run" >&2; exit 1; }
    RUN=run-2
    rm -rf "${HERE:?}/$RUN"
    git rev-parse HEAD > "$HERE/$RUN.recorded_at_commit.txt"
  else
    RUN=run
    rm -rf "${HERE:?}"
    mkdir -p "$HERE"
    git rev-parse HEAD > "$HERE/recorded_at_commit.txt"
  fi
}

# record_sweep CONCURRENCY SERVER_OPTION...: the replay sweep of TASKS into HERE/RUN, with the
# machine's load before and after, keeping what is scored and dropping the journals and logs.
record_sweep() {
  local concurrency=$1
  shift
  local tasks=()
  for t in "${TASKS[@]}"; do tasks+=(--task "$t"); done
  { date -u +%FT%TZ; uptime; } > "$HERE/$RUN.load_before.txt"
  nice -n -10 "$AGBENCH" sweep --agent replay --trajectories "$REF/trajectories.jsonl" \
    --archs LO,CO,HCL,HLL --concurrency "$concurrency" "${tasks[@]}" "$@" --out "$HERE/$RUN" --quiet
  { date -u +%FT%TZ; uptime; } > "$HERE/$RUN.load_after.txt"
  cp "$REF/trajectories.jsonl" "$HERE/$RUN/trajectories.jsonl"
  rm -rf "$HERE/$RUN/journal" "$HERE/$RUN/traces/parts" "$HERE/$RUN/raw_responses.jsonl" "$HERE/$RUN/logs" \
    "$HERE/$RUN/llama-server.log" "$HERE/$RUN/timeline.json"
  rm -rf "$REF/latest" runs/latest
}
