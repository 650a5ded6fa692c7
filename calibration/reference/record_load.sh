#!/usr/bin/env bash
# Re-records the open-loop load reference on this machine, with one command:
#   bash calibration/reference/record_load.sh
# Real llama-server (SmolLM2-135M, managed, the `agbench load` defaults: 8,192 KV cells, four
# slots; 256-token prompts, 32 output tokens), constant rates of 0.2, 0.5, 1 and 2 requests/s,
# 40 requests per level. bench/fidelity.py fits the lowest two rates and predicts the other two.
# One server thread, as record.sh has it, not the default two: recorded with two threads on this
# two-core machine while other work ran (load average 3.3-9.5), a 32-token decode took 7-44 s
# instead of 0.27 s (spinning threads that do not both get a core), so the run measured the
# neighbours, not the server. Still, record it on an otherwise idle machine.
# Only the compact part of the run is kept, as for the sweep reference: run.json,
# traces/*.parquet, summary.
set -euo pipefail
cd "$(dirname "$0")/../.."
AGBENCH="${AGBENCH:-.venv/bin/agbench}"
HERE=calibration/reference/load
REQUESTS="${REQUESTS:-40}"

rm -rf "$HERE"
"$AGBENCH" load --rates 0.2,0.5,1,2 --requests "$REQUESTS" --threads 1 --out "$HERE" --quiet
rm -rf "$HERE/journal" "$HERE/traces/parts" "$HERE/raw_responses.jsonl" "$HERE/logs" "$HERE/llama-server.log"
rm -rf "$(dirname "$HERE")/latest"  # the run's "latest" copy
du -sh "$HERE"
