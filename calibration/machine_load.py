"""How busy the machine was with *other* work while each model call ran.

The reference is recorded on a shared machine: another process's load slows a one-thread
llama-server by 10-30 % (shared caches, memory bandwidth, the kernel's scheduling), which the
fitted rates would otherwise absorb as if it were the device. The resource sampler records the
machine's CPU use; our own servers' use is known from the traces (one thread per server with a
request in flight), so the rest is someone else's. Calibration fits the server rates on calls
during which that background stayed small, when enough of them exist.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: A call counts as measured on a quiet machine when the others' load stayed below this (cores).
QUIET_BACKGROUND_CORES = 0.5


def busy_servers(calls: pd.DataFrame, t: np.ndarray) -> np.ndarray:
    """How many of our servers (local, cloud stand-in) had a request in flight at each time."""
    out = np.zeros(len(t))
    for _, group in calls.groupby("endpoint"):
        start = group["t_start"].to_numpy(float)
        end = start + group["total_s"].to_numpy(float)
        order = np.argsort(start)
        start, end = start[order], np.maximum.accumulate(end[order])
        i = np.searchsorted(start, t, side="right") - 1
        out += (i >= 0) & (end[np.clip(i, 0, None)] > t)
    return out


def background_cores(
    calls: pd.DataFrame, samples: pd.DataFrame, cores: int, threads_per_server: int
) -> np.ndarray:
    """Per call: mean cores used by other processes during it (NaN without a sample)."""
    out = np.full(len(calls), np.nan)
    if samples.empty or calls.empty:
        return out
    samples = samples.sort_values("t")
    t = samples["t"].to_numpy(float)
    used = samples["cpu_percent"].to_numpy(float) / 100.0 * cores
    ours = busy_servers(calls, t) * threads_per_server
    other = np.clip(used - ours, 0.0, None)
    start = calls["t_start"].to_numpy(float)
    end = start + calls["total_s"].to_numpy(float)
    lo = np.searchsorted(t, start, side="left")
    hi = np.searchsorted(t, end, side="right")
    for k in range(len(calls)):
        if hi[k] > lo[k]:
            out[k] = float(other[lo[k] : hi[k]].mean())
        elif len(t):
            out[k] = float(other[min(lo[k], len(t) - 1)])
    return out


def quiet_mask(
    model_calls: pd.DataFrame, samples: pd.DataFrame, cores: int, threads_per_server: int
) -> np.ndarray:
    """Per call (aligned with ``model_calls``' rows): measured while others' load stayed small."""
    keep = np.zeros(len(model_calls), dtype=bool)
    if samples.empty or model_calls.empty:
        return keep
    frame = model_calls.reset_index(drop=True)
    # one configuration of one run (calibrate may be given several recordings)
    keys = ["run_id", "architecture", "concurrency"]
    for _, group in frame.groupby(keys):
        mine = samples
        for key in keys:
            mine = mine[mine[key] == group[key].iloc[0]]
        load = background_cores(group, mine, cores, threads_per_server)
        keep[group.index.to_numpy()] = np.nan_to_num(load, nan=np.inf) < QUIET_BACKGROUND_CORES
    return keep


__all__ = ["QUIET_BACKGROUND_CORES", "background_cores", "busy_servers", "quiet_mask"]
