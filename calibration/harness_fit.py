"""Fit the harness's own time: what a live task spends outside model calls and tools.

A replayed task is mostly model calls, but the live harness also spends time of its own:
setting up the sandbox before the first request and verifying after the last step, building
and sizing every request (``/tokenize``, filler, the recording proxy) between one step's end
and the next request, and a little inside each call (HTTP, the proxy, the chat template)
beyond what llama.cpp reports in its ``timings``. Synthesised trajectories record none of it
(``think_s`` = 0), so it is fitted here from the fit-level traces and the simulator adds it
(``BehaviourProfile.turn_gap_s``, ``harness_overhead_s``, ``ServerProfile.request_overhead_s``)
instead of reading it from held-out runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from agbench.attempt import Endpoint, ErrorClass
from agbench.calibration.fitting import MIN_SAMPLES, FitQuality, too_few, variation
from agbench.status import Status

#: One attempt: the run it belongs to first (calibrate takes several runs, and the same task at
#: the same level in two recordings is two attempts, hours apart).
ATTEMPT_KEYS = ["run_id", "architecture", "concurrency", "task", "attempt"]


def task_events(model_calls: pd.DataFrame, tool_calls: pd.DataFrame) -> pd.DataFrame:
    """Every model call and tool call as one interval table (start, end, kind) per attempt."""
    keys = ATTEMPT_KEYS
    calls = model_calls[[*keys, "t_start", "total_s"]].rename(columns={"total_s": "length"})
    calls = calls.assign(kind="call")
    tools = tool_calls[[*keys, "t_start", "wall_s"]].rename(columns={"wall_s": "length"})
    tools = tools.assign(kind="tool")
    events = pd.concat([calls, tools], ignore_index=True)
    events["t_end"] = events["t_start"] + events["length"].astype(float)
    return events.sort_values([*keys, "t_start"]).reset_index(drop=True)


def harness_gaps(
    task_runs: pd.DataFrame, model_calls: pd.DataFrame, tool_calls: pd.DataFrame
) -> tuple[np.ndarray, np.ndarray]:
    """(gaps before every model call but each attempt's first, setup + teardown per attempt).

    A gap is a request's start minus the latest end of anything the attempt did before it.
    """
    runs = task_runs[task_runs["status"] != Status.INTERRUPTED]
    events = task_events(model_calls, tool_calls)
    gaps: list[float] = []
    edges: list[float] = []
    keys = ATTEMPT_KEYS
    grouped = {k: g for k, g in events.groupby(keys)}
    for run in runs.to_dict("records"):
        key = tuple(run[k] for k in keys)
        group = grouped.get(key)
        if group is None or group.empty:
            continue
        starts = group["t_start"].to_numpy(float)
        ends = group["t_end"].to_numpy(float)
        kinds = group["kind"].to_numpy()
        latest = -np.inf
        for i in range(len(starts)):
            if i > 0 and kinds[i] == "call":
                gaps.append(max(0.0, starts[i] - latest))
            latest = max(latest, ends[i])
        edges.append(max(0.0, starts[0] - float(run["t_start"])) + max(0.0, float(run["t_end"]) - latest))
    return np.asarray(gaps, float), np.asarray(edges, float)


def request_overheads(model_calls: pd.DataFrame) -> np.ndarray:
    """Per successful local call: its time beyond llama.cpp's own prompt + generation timings."""
    calls = model_calls[
        (model_calls["endpoint"] == Endpoint.LOCAL)
        & (model_calls["error_class"].fillna("") == ErrorClass.NONE)
        & model_calls["prompt_ms"].notna()
        & model_calls["predicted_ms"].notna()
    ]
    served = (calls["prompt_ms"].astype(float) + calls["predicted_ms"].astype(float)) / 1000.0
    extra = calls["total_s"].astype(float) - served
    return extra[extra >= 0].to_numpy(float)


def fit_harness(
    task_runs: pd.DataFrame, model_calls: pd.DataFrame, tool_calls: pd.DataFrame
) -> tuple[dict[str, dict[str, float]], dict[str, Any]]:
    """Profile tables (``behaviour`` and ``server`` keys) and the fit records."""
    gaps, edges = harness_gaps(task_runs, model_calls, tool_calls)
    behaviour: dict[str, float] = {}
    server: dict[str, float] = {}
    fits: dict[str, Any] = {}
    if len(gaps) >= MIN_SAMPLES:
        behaviour["turn_gap_s"] = float(np.mean(gaps))
        behaviour["turn_gap_cv"] = variation(gaps)
        fits["harness_turn_gap"] = FitQuality(
            "behaviour.turn_gap_s", len(gaps), f"mean (median {np.median(gaps):.4f} s)"
        ).to_dict()
    else:
        fits["harness_turn_gap"] = too_few("behaviour.turn_gap_s", len(gaps), "zero").to_dict()
    if len(edges) >= 1:
        # The simulator adds a turn gap before every turn, the lead's first one included:
        # that part of the measured setup is not counted twice.
        first_gap = behaviour.get("turn_gap_s", 0.0)
        behaviour["harness_overhead_s"] = float(max(0.0, np.mean(edges) - first_gap))
        behaviour["harness_overhead_cv"] = variation(edges)
        fits["harness_overhead"] = FitQuality(
            "behaviour.harness_overhead_s", len(edges), "mean of setup + teardown per attempt"
        ).to_dict()
    overheads = request_overheads(model_calls)
    if len(overheads) >= MIN_SAMPLES:
        server["request_overhead_s"] = float(np.median(overheads))
        server["request_overhead_cv"] = variation(overheads)
        fits["server_request_overhead"] = FitQuality(
            "server.request_overhead_s", len(overheads), "median of total - (prompt + predicted)"
        ).to_dict()
    else:
        fits["server_request_overhead"] = too_few(
            "server.request_overhead_s", len(overheads), "zero"
        ).to_dict()
    return {"behaviour": behaviour, "server": server}, fits


__all__ = ["fit_harness", "harness_gaps", "request_overheads", "task_events"]
