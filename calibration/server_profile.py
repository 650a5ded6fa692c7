"""A server profile: the serving stack's coefficients, fitted from ``agbench profile-server``'s calls.

Every coefficient the simulator's ``ServerRates`` integrates is fitted here from calls made
under controlled conditions (live/load/profile.py), never from an agent run: the decode step by
batch size and KV tokens, the prefill rate by context, the masked-cell cost of a unified pool
(cells held by background sequences), the prompt-cache restore and save times and the slowdown
while a busy loop holds a core (the last in cpu_fit.py). Each fit keeps its data range and its error, so a prediction that
leaves the measured range can be flagged (``out_of_range``) and an interval can be drawn from
the residuals (``residual_spread``).

``server_profile.toml`` tables: ``[server]`` the settings profiled; ``[rates]`` ServerRates
fields; ``[cpu]``, ``[restore]``, ``[save]``; ``[fit.<term>]`` samples, median and mean absolute relative
error, and the data range of each regressor; ``[meta]`` how and when it was measured.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import tomli_w

from agbench.calibration.cpu_fit import fit_cpu
from agbench.calibration.fitting import robust_nonneg_fit
from agbench.calibration.profile_calls import probe_rows, read_calls, value_span
from agbench.errors import AgbenchError
from agbench.load import PROFILE_CALLS_FILE
from agbench.sim.plain_data import load_toml
from agbench.sim.profiles import ServerRates

#: ServerRates fields a profile measures (laid over a calibrated profile by ``--server-profile``).
MEASURED_RATES = (
    "prefill_tok_s",
    "prefill_ctx_slowdown_per_k",
    "prefill_masked_batch_s_per_k",
    "prefill_masked_token_s_per_k",
    "decode_step_s",
    "decode_step_per_seq_s",
    "decode_step_per_kv_token_s",
    "decode_table_batch",
    "decode_table_step_s",
    "decode_table_per_kv_token_s",
    "prefill_batch_s",
)


def measured_server_rates(rates: dict[str, Any]) -> ServerRates:
    """``ServerRates`` with the measured terms of ``rates`` (a profile's ``[rates]`` or a
    calibrated overlay's ``server.rates``) and the defaults for the rest."""
    r = ServerRates()
    for key, value in rates.items():
        if key in MEASURED_RATES:
            setattr(r, key, rate_value(value))
    return r


def rate_value(value: Any) -> float | list[float]:
    """A rate as ServerRates holds it: a number, or a measured table's list of numbers."""
    return [float(v) for v in value] if isinstance(value, list | tuple) else float(value)


def _errors(pred: np.ndarray, y: np.ndarray) -> dict[str, float]:
    rel = np.abs(pred - y) / np.maximum(np.abs(y), 1e-12)
    signed = (y - pred) / np.maximum(np.abs(pred), 1e-12)
    return {
        "median_abs_rel_error": float(np.median(rel)),
        "mean_abs_rel_error": float(np.mean(rel)),
        # the spread of measured / fitted - 1: what an interval draws from (residual_spread)
        "rel_residual_sd": float(np.std(signed)),
    }


def fit_decode(calls: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Seconds per generated token = w(b) + k(b) K, where ``K`` is the batch's KV tokens (b
    sequences x their mean context), w(b) the step's fixed part and k(b) its KV slope at batch
    ``b``, one pair per batch size measured (``decode_table_*``; k shared where a size was
    measured at one context only): on a CPU the batch-1 step takes a cheaper kernel path than
    batches of two or more, so no line through every size fits both ends.
    ``decode_step_s + decode_step_per_seq_s (b - 1)`` is the line through those coefficients
    (for sizes past the last measured one, and the summaries)."""
    rows = [r for r in probe_rows(calls, "decode") if r["completion_tokens"] >= 4 and r["predicted_ms"]]
    if len(rows) < 3:
        raise AgbenchError(f"profile: {len(rows)} decode calls, too few to fit the decode step")
    b, ctx, tau = _decode_points(rows)
    kv = b * ctx
    sizes = sorted({float(x) for x in b})
    design = np.column_stack([*(np.where(b == size, 1.0, 0.0) for size in sizes), kv])
    coef, _ = robust_nonneg_fit(design, tau, "profile.decode_step")
    steps, per_kv = coef[:-1].copy(), float(coef[-1])
    slopes = np.full(len(sizes), per_kv)
    for i, size in enumerate(sizes):  # a size measured at two contexts or more: its own KV slope
        mine = b == size
        if len(set(ctx[mine].tolist())) >= 2:
            own, _ = robust_nonneg_fit(
                np.column_stack([np.ones(int(mine.sum())), kv[mine]]), tau[mine], "profile.decode_step"
            )
            steps[i], slopes[i] = own
    pred = np.array(
        [steps[sizes.index(x)] + slopes[sizes.index(x)] * k for x, k in zip(b.tolist(), kv, strict=True)]
    )
    if len(sizes) >= 2:
        slope, intercept = np.polyfit(np.array(sizes) - 1.0, steps, 1)
    else:
        slope, intercept = 0.0, float(steps[0])
    rates: dict[str, Any] = {
        "decode_step_s": float(max(intercept, 1e-6)),
        "decode_step_per_seq_s": float(max(slope, 0.0)),
        "decode_step_per_kv_token_s": per_kv,
    }
    if len(sizes) >= 2:
        rates["decode_table_batch"] = sizes
        rates["decode_table_step_s"] = [float(x) for x in steps]
        rates["decode_table_per_kv_token_s"] = [float(x) for x in slopes]
    fit = {"samples": len(rows), "batch": value_span(b), "kv_tokens": value_span(kv), **_errors(pred, tau)}
    return rates, fit


def _decode_points(rows: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(batch, mean context, seconds per token), one point per batch the profiler ran: the
    ``b`` requests of one batch shared the same steps, so each batch counts once, not ``b``
    times (else the large batches would outweigh the small ones the fit must also get right)."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for r in rows:
        p = r["params"]
        groups.setdefault((p["batch"], p.get("ctx"), p.get("rep")), []).append(r)
    points = []
    for (batch, *_), members in groups.items():
        contexts = [m["prompt_tokens"] + m["completion_tokens"] / 2.0 for m in members]
        per_token = [m["predicted_ms"] / 1000.0 / m["completion_tokens"] for m in members]
        points.append((float(batch), float(np.mean(contexts)), float(np.median(per_token))))
    table = np.array(points, float)
    return table[:, 0], table[:, 1], table[:, 2]


def _prefill_rows(calls: list[dict[str, Any]], *probes: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rows = [
        r
        for r in probe_rows(calls, *probes)
        if r["prompt_ms"] and r["prompt_tokens"] - r["cached_tokens"] >= 16
    ]
    n = np.array([r["prompt_tokens"] - r["cached_tokens"] for r in rows], float)
    ctx = np.array([r["cached_tokens"] for r in rows], float) + n / 2.0
    per_token = np.array([r["prompt_ms"] / 1000.0 for r in rows], float) / np.maximum(n, 1.0)
    return n, ctx, per_token


def fit_prefill(calls: list[dict[str, Any]], n_batch: int = 512) -> tuple[dict[str, float], dict[str, Any]]:
    """Seconds of a prompt alone = prefill_batch_s x its batches (``n_batch`` tokens each) +
    tokens x (1 + slowdown ctx / 1000) / prefill_tok_s: each ``llama_decode`` call has a fixed
    part (graph, thread synchronisation, the last token's logits) that a short follow-up prompt
    pays in full. Fitted per token, so long and short prompts weigh alike; the fixed part is
    fitted only where prompts of two or more lengths were measured."""
    n, ctx, per_token = _prefill_rows(calls, "prefill", "prefill_cached", "restore_fresh")
    if len(n) < 3:
        raise AgbenchError(f"profile: {len(n)} prefill calls, too few to fit the prefill rate")
    batches = np.ceil(n / max(1, n_batch))
    columns = [np.ones(len(n)), ctx]
    if len(set(n.tolist())) >= 2:
        columns.append(batches / n)
    design = np.column_stack(columns)
    coef, _ = robust_nonneg_fit(design, per_token, "profile.prefill")
    a, b = float(coef[0]), float(coef[1])
    fixed = float(coef[2]) if len(coef) > 2 else 0.0
    if a <= 0:
        a, b, fixed = float(np.median(per_token)), 0.0, 0.0
        coef = np.array([a, b, 0.0][: design.shape[1]])
    rates = {"prefill_tok_s": 1.0 / a, "prefill_ctx_slowdown_per_k": 1000.0 * b / a, "prefill_batch_s": fixed}
    fit = {
        "samples": len(n),
        "prompt_tokens": value_span(n),
        "context": value_span(ctx),
        **_errors(design @ coef, per_token),
    }
    return rates, fit


def _background_cells(probe: dict[str, Any], backgrounds: list[dict[str, Any]]) -> float:
    """Cells the background sequences held midway through the probe's prompt work: each one's
    prompt plus the tokens it had generated by then (its measured decode rate)."""
    first = probe["t_start"] + (probe["ttft_s"] or probe["total_s"])
    mid = first - (probe["prompt_ms"] or 0.0) / 2000.0
    cells = 0.0
    for bg in backgrounds:
        t_first = bg["t_start"] + (bg["ttft_s"] or 0.0)
        tau = (bg["predicted_ms"] or 0.0) / 1000.0 / max(1, bg["completion_tokens"])
        made = (mid - t_first) / tau if tau > 0 else 0.0
        cells += bg["prompt_tokens"] + min(max(made, 0.0), float(bg["completion_tokens"]))
    return cells


def fit_masked(
    calls: list[dict[str, Any]], rates: dict[str, float], n_batch: int
) -> tuple[dict[str, float], dict[str, Any]]:
    """``ServerRates.masked_s``: the prompt time the alone-rules leave unexplained while
    background sequences hold cells, per 1,000 such cells, per prompt batch and per token.

    The probe's batches also carry the backgrounds' decode tokens (llama.cpp's continuous
    batching): their step time, from the decode fit, is taken out first."""
    probes = probe_rows(calls, "masked")
    if not probes:
        return {}, {"samples": 0, "note": "not measured (per-slot pool, or one slot)"}
    bgs = probe_rows(calls, "masked_background")
    r = measured_server_rates(rates)
    x_batch, x_token, extra, cells_seen, tokens_seen = [], [], [], [], []
    for p in probes:
        mine = [b for b in bgs if abs(b["params"]["probe_sent"] - p["t_start"]) < 2.0]
        mine = [b for b in mine if b["params"]["held"] == p["params"]["held"]]
        if not mine:
            continue
        cells = _background_cells(p, mine)
        n = p["prompt_tokens"] - p["cached_tokens"]
        k = len(mine)
        batches = math.ceil(n / max(1, n_batch - k))
        own = p["cached_tokens"] + n / 2.0
        alone = n / r.prefill_rate(own) + batches * r.decode_step(k, cells)
        x_batch.append(batches * cells / 1000.0)
        x_token.append(n * cells / 1000.0)
        extra.append((p["prompt_ms"] or 0.0) / 1000.0 - alone)
        cells_seen.append(cells)
        tokens_seen.append(n)
    if len(extra) < 2:
        return {}, {"samples": len(extra), "note": "too few masked probes matched their backgrounds"}
    design = np.column_stack([x_batch, x_token])
    y = np.array(extra)
    coef, _ = robust_nonneg_fit(design, y, "profile.masked")
    pred = design @ coef
    fit = {
        "samples": len(y),
        "masked_cells": value_span(cells_seen),
        "prompt_tokens": value_span(tokens_seen),
        "mean_abs_error_s": float(np.mean(np.abs(pred - y))),
        "mean_extra_s": float(np.mean(y)),
    }
    return {
        "prefill_masked_batch_s_per_k": float(coef[0]),
        "prefill_masked_token_s_per_k": float(coef[1]),
    }, fit


def _overhead(rows: list[dict[str, Any]]) -> float:
    """Median seconds from sending a request to the start of its prompt work."""
    gaps = [(r["ttft_s"] or 0.0) - (r["prompt_ms"] or 0.0) / 1000.0 for r in rows if r["ttft_s"]]
    return float(np.median(gaps)) if gaps else math.nan


def fit_restore(calls: list[dict[str, Any]]) -> dict[str, Any]:
    """Restore time per 1,000 cached tokens: a restored follow-up's wait before its prompt
    work, less a fresh request's (the HTTP and template time both have)."""
    restored, fresh = probe_rows(calls, "restore"), probe_rows(calls, "restore_fresh")
    hit = [r for r in restored if r["cached_tokens"] > 0]
    if not hit or not fresh:
        return {"samples": len(hit), "note": "no restored follow-up measured"}
    extra = _overhead(hit) - _overhead(fresh)
    tokens = float(np.median([r["cached_tokens"] for r in hit]))
    return {
        "samples": len(hit),
        "restored_tokens": tokens,
        "extra_s": extra,
        "restore_s_per_k_tokens": max(0.0, extra) / tokens * 1000.0 if tokens > 0 else 0.0,
        "cached_fraction": float(np.mean([r["cached_tokens"] / r["prompt_tokens"] for r in hit])),
    }


def fit_save(calls: list[dict[str, Any]]) -> dict[str, Any]:
    """Seconds per 1,000 tokens copied to the prompt cache at a launch: the save probe's wait
    before its prompt work when its launch copied a held slot (``saved`` False) less when it
    copied only the short request's slot, per size, fitted through the origin on the tokens
    the two copies differ by (held - short)."""
    rows = probe_rows(calls, "save")
    by: dict[tuple[int, bool], list[dict[str, Any]]] = {}
    for r in rows:
        if r["ttft_s"]:
            by.setdefault((int(r["params"]["held"]), bool(r["params"]["saved"])), []).append(r)
    sizes = sorted({held for held, _ in by if (held, False) in by and (held, True) in by})
    if not sizes:
        return {"samples": len(rows), "note": "no save probe measured"}
    short = int(rows[0]["params"].get("short", 0))
    tokens = np.array([held - short for held in sizes], dtype=float)
    extra = np.array([_overhead(by[(h, False)]) - _overhead(by[(h, True)]) for h in sizes])
    slope = float(tokens @ extra / (tokens @ tokens)) if tokens @ tokens > 0 else 0.0
    return {
        "samples": len(rows),
        "held_tokens": sizes,
        "extra_s": [float(x) for x in extra],
        "save_s_per_k_tokens": max(0.0, slope) * 1000.0,
    }


def fit_server_profile(calls: list[dict[str, Any]], meta: dict[str, Any]) -> dict[str, Any]:
    """The ``server_profile.toml`` tables from a profiler's calls."""
    server = dict(meta["server"])
    n_batch = int(server.get("batch_size") or 512)
    decode, decode_fit = fit_decode(calls)
    prefill, prefill_fit = fit_prefill(calls, n_batch)
    rates = {**decode, **prefill}
    masked, masked_fit = fit_masked(calls, rates, n_batch)
    rates.update(masked)
    cores = int(meta.get("cores") or os.cpu_count() or 1)
    cpu = fit_cpu(calls, int(server.get("threads") or 1), cores, n_batch)
    return {
        "server": {k: v for k, v in server.items() if v is not None},
        "rates": rates,
        "cpu": cpu,
        "restore": fit_restore(calls),
        "save": fit_save(calls),
        "fit": {"decode": decode_fit, "prefill": prefill_fit, "masked": masked_fit},
        "meta": {k: v for k, v in {**meta, "cores": cores}.items() if k != "server" and v is not None},
    }


#: Bootstrap resamples kept in a profile (what prediction intervals draw from).
BOOTSTRAP_DRAWS = 20


def write_server_profile(calls: list[dict[str, Any]], meta: dict[str, Any], path: Path) -> Path:
    tables = fit_server_profile(calls, meta)
    tables["noise"] = repeat_drift(calls)
    refits = bootstrap_refits(calls, meta, BOOTSTRAP_DRAWS)
    tables["bootstrap"] = {"rates": [r for r, _ in refits], "cpu": [c for _, c in refits]}
    path.write_text(tomli_w.dumps(_finite(tables)), encoding="utf-8")
    return path


def recorded_calls(profile_path: Path) -> Path | None:
    """The calls a ``server_profile.toml`` was fitted from, where they were kept."""
    for candidate in (
        profile_path.parent / PROFILE_CALLS_FILE,
        profile_path.parent / "profile" / PROFILE_CALLS_FILE,
    ):
        if candidate.is_file():
            return candidate
    return None


def refit_server_profile(profile_path: Path, out: Path) -> Path:
    """``profile_path`` fitted again from its recorded calls with this version's fits (its
    ``[server]`` and ``[meta]`` kept): a profile recorded before a fit changed is read the way
    a new one would be, without measuring again."""
    old = load_server_profile(profile_path)
    calls_path = recorded_calls(profile_path)
    if calls_path is None:
        raise AgbenchError(f"{profile_path}: no {PROFILE_CALLS_FILE} beside it to fit again")
    calls = read_calls(calls_path)
    meta = {**old.get("meta", {}), "server": old.get("server", {}), "refitted_from": str(profile_path)}
    out.parent.mkdir(parents=True, exist_ok=True)
    return write_server_profile(calls, meta, out)


def _finite(value: Any) -> Any:
    """TOML has no null: NaN figures (not measured) are left out."""
    if isinstance(value, dict):
        return {
            k: _finite(v) for k, v in value.items() if not (isinstance(v, float) and not math.isfinite(v))
        }
    if isinstance(value, list):  # the bootstrap's tables
        return [_finite(v) if isinstance(v, dict) else v for v in value]
    return value


def load_server_profile(path: Path) -> dict[str, Any]:
    """A ``server_profile.toml``; AgbenchError when it is not one."""
    if not path.is_file():
        raise AgbenchError(f"server profile not found: {path}")
    data = load_toml(path)
    if not isinstance(data.get("rates"), dict) or not isinstance(data.get("fit"), dict):
        raise AgbenchError(f"{path} is not a server profile (no [rates] and [fit] tables)")
    return data


def measured_ranges(profile: dict[str, Any]) -> dict[str, list[float]]:
    """What the profile measured: batch sizes, decode KV tokens, prompt contexts, masked cells."""
    fit = profile.get("fit", {})
    ranges = {
        "decode_batch": fit.get("decode", {}).get("batch", []),
        "decode_kv_tokens": fit.get("decode", {}).get("kv_tokens", []),
        "prefill_context": fit.get("prefill", {}).get("context", []),
        "masked_cells": fit.get("masked", {}).get("masked_cells", []),
    }
    return {k: [float(x) for x in v] for k, v in ranges.items() if v}


__all__ = [
    "MEASURED_RATES",
    "bootstrap_refits",
    "fit_server_profile",
    "load_server_profile",
    "measured_ranges",
    "measured_server_rates",
    "rate_value",
    "recorded_calls",
    "refit_server_profile",
    "write_server_profile",
]


def bootstrap_refits(
    calls: list[dict[str, Any]], meta: dict[str, Any], draws: int, seed: int = 0
) -> list[tuple[dict[str, float], dict[str, Any]]]:
    """(rates, CPU speeds) refitted on each of ``draws`` resamples (with replacement) of the
    profile's calls, each probe resampled within itself, both from the same resample: how far
    the coefficients move with the data. The crowded speeds rest on a few calls whose time swings several-fold
    beside a twin (four calls of 67-250 ms a token on dev-t2's profile), and the hybrids' rows
    move with them more than with any rate, so the intervals draw them too."""
    rng = np.random.default_rng(seed)
    by_probe: dict[str, list[dict[str, Any]]] = {}
    for c in calls:
        by_probe.setdefault(c["probe"], []).append(c)
    server = meta["server"]
    n_batch = int(server.get("batch_size") or 512)
    threads = int(server.get("threads") or 1)
    cores = int(meta.get("cores") or os.cpu_count() or 1)
    out: list[tuple[dict[str, float], dict[str, Any]]] = []
    for _ in range(draws):
        sample: list[dict[str, Any]] = []
        for probe, rows in by_probe.items():
            if probe == "masked_background":  # matched to their probes, kept whole
                sample += rows
                continue
            sample += [rows[i] for i in rng.integers(0, len(rows), len(rows))]
        try:
            decode, _ = fit_decode(sample)
            prefill, _ = fit_prefill(sample, n_batch)
        except AgbenchError:
            continue
        rates = {**decode, **prefill}
        rates.update(fit_masked(sample, rates, n_batch)[0])
        out.append((rates, fit_cpu(sample, threads, cores, n_batch)))
    return out


def repeat_drift(calls: list[dict[str, Any]]) -> dict[str, float]:
    """The noise floor between repetitions minutes apart: the relative spread of the same grid
    point's median time across repetitions (decode per token, prefill per token)."""

    def spread(rows: list[dict[str, Any]], key: tuple[str, ...], value: Any) -> float:
        groups: dict[tuple[Any, ...], dict[int, list[float]]] = {}
        for r in rows:
            v = value(r)
            if v is None or v <= 0:
                continue
            point = tuple(r["params"].get(k) for k in key)
            groups.setdefault(point, {}).setdefault(int(r["params"].get("rep", 0)), []).append(v)
        logs = []
        for reps in groups.values():
            medians = [float(np.median(v)) for v in reps.values()]
            if len(medians) >= 2:
                logs.append(float(np.std(np.log(medians), ddof=1)))
        return float(np.sqrt(np.mean(np.square(logs)))) if logs else math.nan

    decode = spread(
        probe_rows(calls, "decode"),
        ("batch", "ctx"),
        lambda r: (
            r["predicted_ms"] / r["completion_tokens"]
            if r["predicted_ms"] and r["completion_tokens"]
            else None
        ),
    )
    prefill = spread(
        probe_rows(calls, "prefill"),
        ("tokens",),
        lambda r: (
            r["prompt_ms"] / max(1, r["prompt_tokens"] - r["cached_tokens"]) if r["prompt_ms"] else None
        ),
    )
    return {"decode_rel_sd": decode, "prefill_rel_sd": prefill}
