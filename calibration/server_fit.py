"""Fit the local server's prefill and decode rates from its model calls.

The simulator advances sequences analytically with ``ServerRates`` (sim/profiles.py): a decode
step costs ``decode_step_s + decode_step_per_seq_s * (batch - 1)`` and prompts are processed at
``prefill_tok_s / (1 + slowdown * ctx / 1000)``. Both are fitted here from llama.cpp's own
per-request ``timings`` (prompt_ms, predicted_ms), which exclude queueing, against the batch
each request saw (reconstructed from overlapping intervals, overlap.py) and its context.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from agbench.calibration.fitting import MIN_SAMPLES, FitQuality, linear_fit, too_few
from agbench.calibration.overlap import decode_intervals, mean_overlap

ALONE = 1.25  # a request that shared the server less than this on average counts as "alone"


def local_calls(model_calls: pd.DataFrame) -> pd.DataFrame:
    calls = model_calls[(model_calls["endpoint"] == "local")].copy()
    return calls.sort_values("t_start").reset_index(drop=True)


def fit_decode(calls: pd.DataFrame) -> tuple[dict[str, float], FitQuality]:
    """Per-token decode time against the mean decode batch the request saw."""
    ok = calls[calls["error_class"].fillna("") == ""]
    start, end = decode_intervals(calls)
    batch = pd.Series(mean_overlap(start, end), index=calls.index)
    rows = ok[(ok["completion_tokens"] >= 4) & (ok["predicted_ms"].fillna(0) > 0)]
    if len(rows) < MIN_SAMPLES:
        return {}, too_few("server.decode", len(rows), "roofline/default")
    tau = rows["predicted_ms"].to_numpy(float) / 1000.0 / rows["completion_tokens"].to_numpy(float)
    b = batch.loc[rows.index].to_numpy(float)
    a, c, quality = linear_fit(b - 1.0, tau, "server.decode_step_s(batch)")
    return {"decode_step_s": a, "decode_step_per_seq_s": c}, quality


def fit_prefill(calls: pd.DataFrame) -> tuple[dict[str, float], FitQuality]:
    """Seconds per uncached prompt token against context, from requests that ran alone."""
    ok = calls[calls["error_class"].fillna("") == ""]
    sent = calls["t_start"].to_numpy(float)
    first = sent + calls["ttft_s"].fillna(calls["total_s"]).to_numpy(float)
    share = pd.Series(mean_overlap(sent, np.maximum(first, sent)), index=calls.index)
    uncached = (ok["prompt_tokens"] - ok["cached_tokens"]).astype(float)
    rows = ok[(uncached >= 16) & (ok["prompt_ms"].fillna(0) > 0)]
    alone = rows[share.loc[rows.index] <= ALONE]
    if len(alone) >= MIN_SAMPLES:
        rows = alone
    if len(rows) < MIN_SAMPLES:
        return {}, too_few("server.prefill", len(rows), "roofline/default")
    n = (rows["prompt_tokens"] - rows["cached_tokens"]).to_numpy(float)
    per_token = rows["prompt_ms"].to_numpy(float) / 1000.0 / n
    ctx = rows["cached_tokens"].to_numpy(float) + n / 2.0
    a, b, quality = linear_fit(ctx, per_token, "server.prefill_s_per_token(ctx)")
    if a <= 0:
        a = float(np.median(per_token))
        b = 0.0
    return {"prefill_tok_s": 1.0 / a, "prefill_ctx_slowdown_per_k": 1000.0 * b / a}, quality


def prefix_cache_stats(calls: pd.DataFrame) -> dict[str, Any]:
    ok = calls[(calls["error_class"].fillna("") == "") & (calls["prompt_tokens"] > 0)]
    if ok.empty:
        return {"samples": 0}
    return {
        "samples": len(ok),
        "cached_fraction": float(ok["cached_tokens"].sum() / ok["prompt_tokens"].sum()),
        "calls_with_cache_hit": float((ok["cached_tokens"] > 0).mean()),
    }


def fit_server(model_calls: pd.DataFrame) -> tuple[dict[str, float], dict[str, Any]]:
    """ServerRates fields (only those fitted) and the fit records for the profile's [fit]."""
    calls = local_calls(model_calls)
    rates: dict[str, float] = {}
    fits: dict[str, Any] = {}
    for fitter, name in ((fit_decode, "decode"), (fit_prefill, "prefill")):
        values, quality = fitter(calls)
        rates.update(values)
        fits[f"server_{name}"] = quality.to_dict()
    fits["prefix_cache"] = prefix_cache_stats(calls)
    return rates, fits
