"""Server figures of an open-loop load run, per level, from its ``model_calls`` and ``task_runs``.

The same function reads a live load run and a simulated one, so validation compares like with
like. Per level: offered rate, completed and failed requests (by error class), throughput
(completed requests and generated tokens per second of level wall time), and p50/p90/p99 of
TTFT, inter-token latency (ITL: decode time per generated token after the first) and
end-to-end latency. ``server_queue_s`` estimates the time a request waited inside the server
before its prompt was processed (TTFT minus the server-reported prompt time), where the server
reports it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from agbench.load import LOAD_TASK_PREFIX
from agbench.results.load_summary import LoadSummary
from agbench.results.summary import SUMMARY_SCHEMA_VERSION
from agbench.status import Status

PERCENTILES = (50, 90, 99)


def _percentiles(values: pd.Series, name: str) -> dict[str, float | None]:
    clean = pd.to_numeric(values, errors="coerce").dropna()
    return {f"{name}_p{p}_s": (float(np.percentile(clean, p)) if len(clean) else None) for p in PERCENTILES}


def itl_s(calls: pd.DataFrame) -> pd.Series:
    """Per request: (end-to-end − TTFT) / (generated tokens − 1); NaN where undefined."""
    tokens = pd.to_numeric(calls["completion_tokens"], errors="coerce")
    ttft = pd.to_numeric(calls["ttft_s"], errors="coerce")
    decode = pd.to_numeric(calls["total_s"], errors="coerce") - ttft
    return (decode / (tokens - 1)).where(tokens > 1)


def level_figures(calls: pd.DataFrame, run: pd.Series | None, offered_rate: float | None) -> dict[str, Any]:
    """The figures of one level: ``calls`` are its model_calls rows, ``run`` its task_runs row."""
    final = calls[calls["finish_reason"] != "cancelled"] if len(calls) else calls
    ok = final[final["error_class"].fillna("") == ""]
    wall = float(run["t_end"] - run["t_start"]) if run is not None else None
    errors = calls[calls["error_class"].fillna("") != ""]["error_class"].value_counts()
    out: dict[str, Any] = {
        "offered_rate": offered_rate,
        "requests": len(calls),
        "completed": len(ok),
        "errors": {str(k): int(v) for k, v in errors.items() if v > 0},
        "wall_s": wall,
        "throughput_rps": (len(ok) / wall) if wall else None,
        "output_tok_s": (float(ok["completion_tokens"].sum()) / wall) if wall else None,
        "prompt_tokens_mean": float(ok["prompt_tokens"].mean()) if len(ok) else None,
        "cached_tokens_mean": float(ok["cached_tokens"].mean()) if len(ok) else None,
        "completion_tokens_mean": float(ok["completion_tokens"].mean()) if len(ok) else None,
    }
    out |= _percentiles(ok["ttft_s"], "ttft")
    out |= _percentiles(itl_s(ok) if len(ok) else pd.Series(dtype=float), "itl")
    out |= _percentiles(ok["total_s"], "e2e")
    if len(ok) and "prompt_ms" in ok and ok["prompt_ms"].notna().any():
        queue = (
            pd.to_numeric(ok["ttft_s"], errors="coerce")
            - pd.to_numeric(ok["prompt_ms"], errors="coerce") / 1000
        )
        out["server_queue_p50_s"] = float(np.nanpercentile(queue.clip(lower=0), 50))
    return out


def load_summary(tables: dict[str, pd.DataFrame], meta: dict[str, Any]) -> LoadSummary:
    """``summary.json`` of a load run: one entry per level, in the run's level order."""
    calls = tables.get("model_calls", pd.DataFrame())
    runs = tables.get("task_runs", pd.DataFrame())
    levels_meta = {f"{LOAD_TASK_PREFIX}{d['name']}": d for d in meta.get("options", {}).get("levels", [])}
    order = list(meta.get("task_order") or sorted(set(calls.get("task", pd.Series(dtype=str)))))
    levels: list[dict[str, Any]] = []
    for task in order:
        if not str(task).startswith(LOAD_TASK_PREFIX):
            continue
        level_runs = runs[runs["task"] == task] if len(runs) else runs
        # The last finished attempt of a level counts, as for tasks (interrupted ones never).
        level_runs = level_runs[level_runs["status"] != Status.INTERRUPTED] if len(level_runs) else level_runs
        run = level_runs.sort_values("attempt").iloc[-1] if len(level_runs) else None
        level_calls = calls[calls["task"] == task] if len(calls) else calls
        if run is not None:
            level_calls = level_calls[level_calls["attempt"] == run["attempt"]]
        spec = levels_meta.get(task, {})
        rate = spec.get("rate")
        if rate is None and spec.get("requests"):
            ts = [r["t"] for r in spec["requests"]]
            rate = (len(ts) - 1) / (ts[-1] - ts[0]) if len(ts) > 1 and ts[-1] > ts[0] else None
        levels.append(
            {
                "level": task.removeprefix(LOAD_TASK_PREFIX),
                "kind": spec.get("kind", ""),
                "finished": run is not None,
            }
            | level_figures(level_calls, run, rate)
        )
    return LoadSummary.model_validate(
        {
            "schema_version": SUMMARY_SCHEMA_VERSION,
            "source": meta.get("source", "load"),
            "run_id": meta.get("run_id", ""),
            "device": meta.get("device", ""),
            "labels": list(meta.get("labels", [])),
            "levels": levels,
        }
    )


__all__ = ["PERCENTILES", "itl_s", "level_figures", "load_summary"]
