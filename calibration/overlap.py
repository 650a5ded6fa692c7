"""How many requests shared the local server while a request was being served.

llama.cpp batches every decoding slot into one step, so a request's per-token time depends on
how many others decoded alongside it. The traces record each request's interval, not the
batch, so the batch a request saw is reconstructed as the time-average count of overlapping
decode intervals (itself included). With a unified KV pool a prompt batch spans every cell in
use, so the other sequences' cells a request's prompt met are reconstructed the same way: the
time-average of the other requests' contexts held while it ran (``others_held``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def mean_overlap(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """For each interval i, the time-average number of intervals (incl. i) active during it."""
    n = len(starts)
    out = np.ones(n)
    if n == 0:
        return out
    order = np.argsort(starts)
    s, e = starts[order], ends[order]
    for i in order:
        lo, hi = starts[i], ends[i]
        length = hi - lo
        if length <= 0:
            continue
        # candidates: intervals starting before hi (sorted), overlapping [lo, hi)
        upto = np.searchsorted(s, hi, side="left")
        cand_s, cand_e = s[:upto], e[:upto]
        overlap = np.clip(np.minimum(cand_e, hi) - np.maximum(cand_s, lo), 0.0, None)
        out[i] = overlap.sum() / length  # includes its own full length -> >= 1
    return out


def others_overlap(
    starts: np.ndarray,
    ends: np.ndarray,
    q_starts: np.ndarray,
    q_ends: np.ndarray,
    weights: np.ndarray | None = None,
) -> np.ndarray:
    """For each query interval i, the seconds the *other* intervals j (j != i) overlap it,
    each weighted by ``weights[j]`` (1 when None)."""
    n = len(q_starts)
    out = np.zeros(n)
    for i in range(n):
        overlap = np.clip(np.minimum(ends, q_ends[i]) - np.maximum(starts, q_starts[i]), 0.0, None)
        overlap[i] = 0.0
        out[i] = (overlap * weights).sum() if weights is not None else overlap.sum()
    return out


def others_held(
    starts: np.ndarray, ends: np.ndarray, held: np.ndarray, q_starts: np.ndarray, q_ends: np.ndarray
) -> np.ndarray:
    """For each query interval i, the time-average of ``held`` summed over the *other*
    intervals j (j != i) active during it: the KV cells other requests held meanwhile."""
    length = q_ends - q_starts
    weighted = others_overlap(starts, ends, q_starts, q_ends, held)
    out = np.zeros(len(length))
    np.divide(weighted, length, out=out, where=length > 0)
    return out


def decode_intervals(calls: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Decode phase of each call: from its first token to its end."""
    sent = calls["t_start"].to_numpy(float)
    start = sent + calls["ttft_s"].fillna(0.0).to_numpy(float)
    end = sent + calls["total_s"].to_numpy(float)
    return start, np.maximum(start, end)
