"""How far the live server's speed in the calibration run lands from its server profile.

A server profile is measured in minutes, alone; the sweep it calibrates is recorded later, one
configuration after another, each under whatever else the machine was doing then. The drift
between the profile's repetitions (``server_profile.repeat_drift``) measures only the first of
these. This module measures the second from the calibration run itself: for every local call
of the fitted level (C = 1: one request at a time, so the profile's batch-1 rates apply to it
unchanged), the observed time per decoded token and per prompt token over the time the
profile's rates predict for that call's context; per configuration (run, architecture), the
median log ratio; and over the configurations, their root mean square about zero (how far a
configuration's server speed is from the profile's, bias included) and their mean (the bias
alone, reported).

The mean offset (the bias) sets the level of the calibrated rates (:func:`run_level`): the run's
server was that much faster or slower than its profile. A held-out configuration is recorded
the same way, so its server is off that level by about as much as the fitted ones spread about
it: ``sim/uncertainty.rate_draws`` draws the rates with the larger of the two spreads.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from agbench.attempt import Endpoint
from agbench.sim.profiles import ServerRates

#: Prompts shorter than this are not timed for prefill (a few tokens' time is mostly overhead).
MIN_PREFILL_TOKENS = 16
#: Fewer configurations than this say nothing about the spread between configurations.
MIN_CONFIGURATIONS = 2


def run_drift(calls: pd.DataFrame, rates: ServerRates) -> dict[str, Any]:
    """``{"decode_rel_sd", "prefill_rel_sd", "decode_bias", "prefill_bias", "configurations",
    "calls"}`` from the run's one-at-a-time local calls; the spreads are NaN where fewer than
    :data:`MIN_CONFIGURATIONS` configurations had such calls, the biases where none had."""
    local = calls[(calls["endpoint"] == Endpoint.LOCAL) & (calls["concurrency"] == 1)]
    if "error_class" in local:
        local = local[local["error_class"].isna() | (local["error_class"] == "")]
    decode: dict[tuple[str, str], list[float]] = {}
    prefill: dict[tuple[str, str], list[float]] = {}
    for row in local.to_dict("records"):
        key = (str(row["run_id"]), str(row["architecture"]))
        decode_lr, prefill_lr = call_log_ratios(row, rates)
        if decode_lr is not None:
            decode.setdefault(key, []).append(decode_lr)
        if prefill_lr is not None:
            prefill.setdefault(key, []).append(prefill_lr)
    out_d, bias_d = _spread(decode)
    out_p, bias_p = _spread(prefill)
    return {
        "decode_rel_sd": out_d,
        "prefill_rel_sd": out_p,
        "decode_bias": bias_d,
        "prefill_bias": bias_p,
        "configurations": len(set(decode) | set(prefill)),
        "calls": int(sum(len(v) for v in decode.values())),
    }


def call_log_ratios(row: Mapping[Hashable, Any], rates: ServerRates) -> tuple[float | None, float | None]:
    """(decode, prompt) log of one local call's observed time per token over what ``rates``
    give for it alone on the server (batch 1, its own context); None where the call has too
    little of that kind of work to time."""
    prompt, cached, out = (
        _num(row["prompt_tokens"]),
        _num(row["cached_tokens"]),
        _num(row["completion_tokens"]),
    )
    decode_ms, prompt_ms = _num(row["predicted_ms"]), _num(row["prompt_ms"])
    decode = prefill = None
    if decode_ms > 0 and out > 1:
        step = rates.decode_step(1, prompt + out / 2.0)  # the context halfway through the reply
        decode = math.log(decode_ms / 1000.0 / out / step)
    new = prompt - cached
    if prompt_ms > 0 and new >= MIN_PREFILL_TOKENS:
        # a follow-up prompt is one batch: its fixed part once, then its tokens
        per_token = (rates.prefill_batch_s + new / rates.prefill_rate(cached + new / 2.0)) / new
        prefill = math.log(prompt_ms / 1000.0 / new / per_token)
    return decode, prefill


def run_level(drift: dict[str, Any]) -> dict[str, float]:
    """How much slower than its profile the server ran in the calibration run, per kind of
    work: ``exp`` of the mean offset (``{"decode", "prefill"}``; 1 where it is not known).

    The profile is the server's shape (batch sizes, contexts, crowding), measured in minutes
    at one time; the run is recorded at another, and this machine's speed drifts by more than
    the targets between the two (dev-t2: its C = 1 decode 21 % faster than a profile recorded
    seven hours later). The run's own C = 1 calls say how fast the server was while the sweep
    ran, so calibration moves the profile's rates there; empty when neither offset is known."""
    out: dict[str, float] = {}
    for kind in ("decode", "prefill"):
        bias = drift.get(f"{kind}_bias")
        if isinstance(bias, int | float) and math.isfinite(bias):
            out[kind] = math.exp(float(bias))
    if not out:
        return {}
    return {"decode": out.get("decode", 1.0), "prefill": out.get("prefill", 1.0)}


def _spread(by_config: dict[tuple[str, str], list[float]]) -> tuple[float, float]:
    """(RMS about zero, mean) of the configurations' median log ratios.

    The mean needs one configuration: a sweep of one architecture (LO alone, a common first
    sweep) still says how fast its server ran, and leaving its level unset would take the
    profile's session for the run's, an offset of 20-40 % between sessions on this machine
    (docs/design.md). The RMS is a spread *between* configurations and needs
    :data:`MIN_CONFIGURATIONS`; NaN with fewer (or with none, both)."""
    medians = [float(np.median(v)) for v in by_config.values() if v]
    if not medians:
        return math.nan, math.nan
    mean = float(np.mean(medians))
    if len(medians) < MIN_CONFIGURATIONS:
        return math.nan, mean
    return float(np.sqrt(np.mean(np.square(medians)))), mean


def _num(value: Any) -> float:
    """A trace cell as a float; 0 for a missing or non-finite one (never a usable time)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        return 0.0
    return v if math.isfinite(v) else 0.0


__all__ = ["MIN_CONFIGURATIONS", "MIN_PREFILL_TOKENS", "call_log_ratios", "run_drift", "run_level"]
