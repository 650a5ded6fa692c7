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

from agbench.attempt import Endpoint, ErrorClass
from agbench.calibration.fitting import MIN_SAMPLES, FitQuality, linear_fit, robust_nonneg_fit, too_few
from agbench.calibration.overlap import decode_intervals, mean_overlap, others_held, others_overlap

QUIET_MIN_SAMPLES = 30  # fewer quiet calls than this: fit the decode step on all of them
ALONE = 1.25  # a request that shared the server less than this on average counts as "alone"
DEFAULT_N_BATCH = 512  # llama-server's default n_batch, for runs whose metadata lacks it


def local_calls(model_calls: pd.DataFrame) -> pd.DataFrame:
    calls = model_calls[(model_calls["endpoint"] == Endpoint.LOCAL)].copy()
    return calls.sort_values("t_start").reset_index(drop=True)


def prefill_intervals(calls: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Prompt processing of each call: the ``prompt_ms`` that ended at its first token."""
    sent = calls["t_start"].to_numpy(float)
    first = sent + calls["ttft_s"].fillna(calls["total_s"]).to_numpy(float)
    took = calls["prompt_ms"].fillna(0.0).to_numpy(float) / 1000.0
    return np.maximum(sent, first - took), first


def others_prefill_s(calls: pd.DataFrame) -> np.ndarray:
    """Per call: seconds of *other* calls' prompt processing inside its decode interval.

    llama.cpp's continuous batching puts waiting prompts into the same ``llama_decode`` as the
    running sequences, so a sequence's ``predicted_ms`` includes those prompt chunks. The
    simulator adds that interference itself (``ServerRates``: a step carries a prompt chunk),
    so it is taken out here; otherwise it would be counted twice as a batch-size effect.
    """
    d0, d1 = decode_intervals(calls)
    p0, p1 = prefill_intervals(calls)
    return others_overlap(p0, p1, d0, d1)


def pool_context(calls: pd.DataFrame, q_start: np.ndarray, q_end: np.ndarray) -> np.ndarray:
    """Per call: the KV cells the other calls held during [q_start, q_end), on servers with a
    unified pool (column ``unified``), whose prompt batches span all of them
    (``llama_kv_cache::get_n_kv`` covers the pool's used cells; other sequences' are masked,
    not skipped); 0 on per-slot pools, where a sequence sees only its own cells."""
    if "unified" not in calls.columns or not calls["unified"].astype(bool).any():
        return np.zeros(len(calls))
    sent = calls["t_start"].to_numpy(float)
    end = sent + calls["total_s"].to_numpy(float)
    held = (calls["prompt_tokens"] + calls["completion_tokens"] / 2.0).to_numpy(float)
    others = others_held(sent, end, held, q_start, q_end)
    return np.where(calls["unified"].astype(bool).to_numpy(), others, 0.0)


def decode_samples(calls: pd.DataFrame) -> pd.DataFrame:
    """Per successful call of one server: decode seconds per token (net of the other requests'
    prompt processing that shared its steps), the mean decode batch it saw, and its context."""
    ok = calls["error_class"].fillna("") == ErrorClass.NONE
    start, end = decode_intervals(calls)
    frame = pd.DataFrame(
        {
            "batch": mean_overlap(start, end),
            "interference_s": others_prefill_s(calls),
            "predicted_s": calls["predicted_ms"].fillna(0.0).to_numpy(float) / 1000.0,
            "tokens": calls["completion_tokens"].to_numpy(float),
            "ctx": (calls["prompt_tokens"] + calls["completion_tokens"] / 2.0).to_numpy(float),
        },
        index=calls.index,
    )
    frame = frame[ok & (frame["tokens"] >= 4) & (frame["predicted_s"] > 0)]
    decode_s = np.maximum(frame["predicted_s"] - frame["interference_s"], 0.25 * frame["predicted_s"])
    return frame.assign(tau=decode_s / frame["tokens"])


def fit_decode(servers: list[pd.DataFrame]) -> tuple[dict[str, float], FitQuality]:
    """``ServerRates.decode_step``: per-token time = step(batch, KV) with non-negative
    coefficients (scipy nnls) for the fixed step, each extra sequence, and each KV token the
    decoding batch attends to (approximated by batch x the request's own context).

    On a CPU-only llama.cpp the step is compute bound: each sequence of the batch costs about
    as much as one alone, and attention grows with the context, so both terms extrapolate to
    batches the fit levels never reached (C = 4, 8).
    """
    frames: list[pd.DataFrame] = []
    for calls in servers:
        if calls.empty:
            continue
        samples = decode_samples(calls)
        quiet = calls.loc[samples.index, "quiet"] if "quiet" in calls.columns else True
        frames.append(samples.assign(quiet=quiet))
    rows = pd.concat(frames) if frames else pd.DataFrame()
    if len(rows) and int(rows["quiet"].sum()) >= QUIET_MIN_SAMPLES:
        rows = rows[rows["quiet"].astype(bool)]
    if len(rows) < MIN_SAMPLES:
        return {}, too_few("server.decode", len(rows), "roofline/default")
    b = rows["batch"].to_numpy(float)
    tau = rows["tau"].to_numpy(float)
    design = np.column_stack([np.ones(len(rows)), b - 1.0, b * rows["ctx"].to_numpy(float)])
    coef, quality = robust_nonneg_fit(design, tau, "server.decode_step_s(batch, kv)")
    if coef[0] <= 0:  # no sensible intercept: the plain linear fit in the batch
        a, c, quality = linear_fit(b - 1.0, tau, "server.decode_step_s(batch)")
        return {"decode_step_s": a, "decode_step_per_seq_s": c}, quality
    return {
        "decode_step_s": float(coef[0]),
        "decode_step_per_seq_s": float(coef[1]),
        "decode_step_per_kv_token_s": float(coef[2]),
    }, quality


def prefill_samples(calls: pd.DataFrame) -> pd.DataFrame:
    """One server's successful calls with their prompt-sharing factor (``share``)."""
    ok = calls["error_class"].fillna("") == ErrorClass.NONE
    sent = calls["t_start"].to_numpy(float)
    first = sent + calls["ttft_s"].fillna(calls["total_s"]).to_numpy(float)
    share = mean_overlap(sent, np.maximum(first, sent))
    p0, p1 = prefill_intervals(calls)
    frame = calls.assign(share=share, pool_ctx=pool_context(calls, p0, p1))[ok]
    uncached = (frame["prompt_tokens"] - frame["cached_tokens"]).astype(float)
    return frame[(uncached >= 16) & (frame["prompt_ms"].fillna(0) > 0)]


def fit_prefill(
    servers: list[pd.DataFrame], n_batch: int = DEFAULT_N_BATCH
) -> tuple[dict[str, float], FitQuality]:
    """Seconds per uncached prompt token against context, from requests that ran alone."""
    frames = [prefill_samples(calls) for calls in servers if not calls.empty]
    rows = pd.concat(frames) if frames else pd.DataFrame()
    alone = rows[rows["share"] <= ALONE] if len(rows) else rows
    if len(alone) >= MIN_SAMPLES:
        rows = alone
    if len(rows) < MIN_SAMPLES:
        return {}, too_few("server.prefill", len(rows), "roofline/default")
    n = (rows["prompt_tokens"] - rows["cached_tokens"]).to_numpy(float)
    per_token = rows["prompt_ms"].to_numpy(float) / 1000.0 / n
    ctx = rows["cached_tokens"].to_numpy(float) + n / 2.0
    masked = rows["pool_ctx"].to_numpy(float)
    own = masked <= 0  # the context rule from calls that shared no pool cells
    if own.sum() < MIN_SAMPLES:
        own = np.ones(len(rows), dtype=bool)
    design = np.column_stack([np.ones(len(ctx)), ctx])
    (a, b), quality = robust_nonneg_fit(design[own], per_token[own], "server.prefill_s_per_token(ctx)")
    if a <= 0:
        a, b = float(np.median(per_token)), 0.0
    fitted = {"prefill_tok_s": 1.0 / a, "prefill_ctx_slowdown_per_k": 1000.0 * b / a}
    extra = rows["prompt_ms"].to_numpy(float) / 1000.0 - n * (a + b * ctx)
    fitted.update(fit_masked(n, extra, masked, n_batch))
    return fitted, quality


def fit_masked(
    tokens: np.ndarray, extra_s: np.ndarray, masked: np.ndarray, n_batch: int = DEFAULT_N_BATCH
) -> dict[str, float]:
    """``ServerRates.masked_s``: what a unified pool's other cells add to a prompt, per prompt
    batch and per prompt token, per 1,000 masked cells, from the prompt time the context rule
    leaves unexplained (nnls; needs calls that ran beside other sequences' cells).

    Two terms because measurement says so (docs/design.md): beside three sequences holding
    4,600 cells, a 100-token prompt took 373 ms longer than alone and a 400-token one 543 ms,
    not four times as much."""
    shared = masked > 0
    if shared.sum() < MIN_SAMPLES:
        return {}
    k = masked[shared] / 1000.0
    batches = np.ceil(tokens[shared] / n_batch)  # the run's own n_batch
    design = np.column_stack([batches * k, tokens[shared] * k])
    coef, _ = robust_nonneg_fit(design, extra_s[shared], "server.prefill_masked_s")
    return {"prefill_masked_batch_s_per_k": float(coef[0]), "prefill_masked_token_s_per_k": float(coef[1])}


def prefix_cache_stats(calls: pd.DataFrame) -> dict[str, Any]:
    ok = calls[(calls["error_class"].fillna("") == ErrorClass.NONE) & (calls["prompt_tokens"] > 0)]
    if ok.empty:
        return {"samples": 0}
    return {
        "samples": len(ok),
        "cached_fraction": float(ok["cached_tokens"].sum() / ok["prompt_tokens"].sum()),
        "calls_with_cache_hit": float((ok["cached_tokens"] > 0).mean()),
    }


def fit_server(
    model_calls: pd.DataFrame, cloud_standin: bool = False, n_batch: int = DEFAULT_N_BATCH
) -> tuple[dict[str, float], dict[str, Any]]:
    """ServerRates fields (only those fitted) and the fit records for the profile's [fit].

    A boolean ``quiet`` column (machine_load.py: measured while other processes left the
    machine alone) restricts the decode fit to those calls when enough of them exist; batches
    are still reconstructed from every call.

    With a cloud stand-in (the same model on a second llama-server with the same threads),
    its calls are samples of the same rates: each server's calls are fitted as their own
    group (batches are reconstructed per server) and pooled.
    """

    def per_server(frame: pd.DataFrame) -> list[pd.DataFrame]:
        servers = [local_calls(frame)]
        if cloud_standin:
            cloud = frame[frame["endpoint"] == Endpoint.CLOUD].sort_values("t_start")
            servers.append(cloud.reset_index(drop=True))
        return servers

    calls = local_calls(model_calls)
    rates: dict[str, float] = {}
    fits: dict[str, Any] = {}
    decode, decode_quality = fit_decode(per_server(model_calls))
    prefill, prefill_quality = fit_prefill(per_server(model_calls), n_batch)
    rates.update(decode)
    rates.update(prefill)
    fits["server_decode"] = decode_quality.to_dict()
    fits["server_prefill"] = prefill_quality.to_dict()
    fits["prefix_cache"] = prefix_cache_stats(calls)
    return rates, fits
