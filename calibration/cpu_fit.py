"""The server's speed on crowded cores, fitted from ``agbench profile-server``'s CPU probes.

The probes (live/load/profile.py) run decode and prompt calls again beside a busy loop in the
server's session, beside one in a session of its own (a sandboxed tool's), and beside a twin
server; each speed is the quiet calls' time over the slowed ones'. What the simulator does with
them: sim/predictors/cpu_speed.py; why decode and prompt work are kept apart: docs/design.md,
"Crowded threads".
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from agbench.calibration.profile_calls import probe_rows, value_span
from agbench.sim.entities.cpu import water_fill


def _ratios(calls: list[dict[str, Any]], quiet_probe: str, busy_probe: str, key: str) -> dict[int, float]:
    """Quiet time over busy time (1: no slowdown) per context (decode) or prompt length
    (prefill) both probes measured: the quiet calls' median, the busy ones' mean. A crowded
    server's time per token swings several-fold from one call to the next (measured beside a
    twin: 45-298 ms a token in one run), and what a run's length adds up is the mean time."""

    def per_unit(rows: list[dict[str, Any]], average: Any = np.median) -> dict[Any, float]:
        out: dict[Any, list[float]] = {}
        for r in rows:
            if r["params"].get("batch", 1) != 1:
                continue
            if key == "decode" and r["predicted_ms"] and r["completion_tokens"]:
                out.setdefault(r["params"]["ctx"], []).append(r["predicted_ms"] / r["completion_tokens"])
            elif key == "prefill" and r["prompt_ms"]:
                n = r["prompt_tokens"] - r["cached_tokens"]
                out.setdefault(r["params"]["tokens"], []).append(r["prompt_ms"] / max(1, n))
        return {k: float(average(v)) for k, v in out.items()}

    quiet, busy = per_unit(probe_rows(calls, quiet_probe)), per_unit(probe_rows(calls, busy_probe), np.mean)
    return {k: quiet[k] / busy[k] for k in sorted(quiet) if k in busy and busy[k] > 0}


def _speed(calls: list[dict[str, Any]], quiet_probe: str, busy_probe: str, key: str, value: Any) -> float:
    """The median of :func:`_ratios` over what both probes measured; ``value`` where nothing."""
    ratios = list(_ratios(calls, quiet_probe, busy_probe, key).values())
    return float(np.median(ratios)) if ratios else value


def fit_cpu(calls: list[dict[str, Any]], threads: int, cores: int, n_batch: int = 512) -> dict[str, Any]:
    """The server's speed with one core busy, and ``oversubscribed_efficiency`` where the
    simulator's processor sharing gives the threads less than a core each: speed =
    share (1 - (1 - e)(1 - share)) with share = cores / (threads + 1)."""
    decode = _speed(calls, "decode", "decode_cpu_busy", "decode", math.nan)
    prefill = _speed(calls, "prefill", "prefill_cpu_busy", "prefill", math.nan)
    out: dict[str, Any] = {
        "cores": cores,
        "threads": threads,
        "busy_core_decode_speed": decode,
        "busy_core_prefill_speed": prefill,
    }
    share = min(1.0, cores / (threads + 1.0))
    speeds = [s for s in (decode, prefill) if math.isfinite(s)]
    # the data the efficiency rests on: one operating point (the share the threads get beside
    # one busy core), the speeds measured there and the calls behind them
    out["share"] = share
    out["samples"] = len(probe_rows(calls, "decode_cpu_busy", "prefill_cpu_busy"))
    if speeds:
        out["speed_range"] = value_span(speeds)
    if share < 1.0 and speeds:
        speed = float(np.mean(speeds))
        e = 1.0 - (1.0 - min(speed / share, 1.0)) / (1.0 - share)
        out["oversubscribed_efficiency"] = float(min(1.0, max(0.0, e)))
        if e < 0.0:
            out["note"] = (
                f"measured speed {speed:.3f} is below the form's floor share**2 = {share**2:.3f}: "
                "oversubscribed_efficiency held at 0, the slowest the simulator's form allows"
            )
    else:
        out["note"] = (
            "the threads fit beside the busy core: the simulator's processor sharing gives them a "
            "full share, so oversubscribed_efficiency is not measured by this probe"
        )
    out.update(fit_displaced(calls, threads, cores))
    out.update(fit_crowded(calls, threads, cores, n_batch))
    return out


#: The crowded-speed table's keys, as the fit writes them and the simulator reads them.
CROWDED_KEYS = (
    "crowded_share",
    "crowded_decode_speed",
    "crowded_prefill_speed",
    "crowded_prefill_tokens",
    "crowded_prefill_speed_by_tokens",
)


def batch_tokens(new_tokens: float, n_batch: int) -> float:
    """The mean batch a prompt of ``new_tokens`` uncached tokens is read in: llama-server cuts
    them into batches of ``n_batch`` tokens, the last one shorter."""
    batches = max(1, math.ceil(new_tokens / max(1, n_batch)))
    return new_tokens / batches


def _new_tokens(calls: list[dict[str, Any]], probe: str, length: int) -> float:
    """The uncached tokens the probe's prompts of ``length`` had (the template's shared prefix
    is cached: a "64-token" prompt is read as about 34)."""
    return float(
        np.median(
            [
                max(1, r["prompt_tokens"] - r["cached_tokens"])
                for r in probe_rows(calls, probe)
                if r["params"].get("tokens") == length
            ]
        )
    )


def fit_crowded(calls: list[dict[str, Any]], threads: int, cores: int, n_batch: int = 512) -> dict[str, Any]:
    """The server's decode and prompt speeds where its own group crowds its threads, one point
    per probe that ran with the threads short of a core each: beside the twin server (share
    cores / (2 x threads)) and beside the busy loop (cores / (threads + 1)), by share. Decode
    and prompt work apart: their slowdowns differ several-fold (sim/predictors/cpu_speed.py).

    Where every point measured prompts of more than one length, the prompt speed is kept per
    length too (``crowded_prefill_speed_by_tokens``, one row per share, one column per batch
    size in ``crowded_prefill_tokens``): a short prompt batch is as many barriers as a long one
    for less work, so it slows more (measured here beside a twin: 0.22-0.26 for 51 uncached
    tokens, 0.36 for 511; beside a busy loop, dev-t2's profile: 0.46 for 34, 0.51 for 497)."""
    points: list[tuple[float, float, float, str, dict[int, float]]] = []
    for probe, share in (("cpu_twin", cores / (2.0 * threads)), ("cpu_busy", cores / (threads + 1.0))):
        decode = _speed(calls, "decode", f"decode_{probe}", "decode", math.nan)
        by_length = _ratios(calls, "prefill", f"prefill_{probe}", "prefill")
        prefill = float(np.median(list(by_length.values()))) if by_length else math.nan
        if share < 1.0 and all(math.isfinite(v) and v > 0 for v in (decode, prefill)):
            points.append((share, min(1.0, decode), min(1.0, prefill), probe, by_length))
    if not points:
        return {}
    points.sort(key=lambda p: p[0])
    out: dict[str, Any] = {
        "crowded_share": [p[0] for p in points],
        "crowded_decode_speed": [p[1] for p in points],
        "crowded_prefill_speed": [p[2] for p in points],
        "crowded_probes": [p[3] for p in points],
        "crowded_samples": len(
            probe_rows(calls, "decode_cpu_twin", "prefill_cpu_twin", "decode_cpu_busy", "prefill_cpu_busy")
        ),
    }
    stacked = [
        float(c["params"]["stacked"])
        for c in probe_rows(calls, "decode_cpu_twin")
        if "stacked" in c["params"]
    ]
    if stacked:  # where the kernel put the threads while the twin figure was measured: a record
        out["twin_stacked_share"] = float(np.mean(stacked))
    lengths = sorted(set.intersection(*(set(p[4]) for p in points)))
    if len(lengths) > 1:
        out["crowded_prefill_tokens"] = [
            batch_tokens(_new_tokens(calls, "prefill", n), n_batch) for n in lengths
        ]
        out["crowded_prefill_speed_by_tokens"] = [[min(1.0, p[4][n]) for n in lengths] for p in points]
    return out


def fit_displaced(calls: list[dict[str, Any]], threads: int, cores: int) -> dict[str, Any]:
    """The server's speed while a busy loop in a session of its own takes cores from its
    threads (``displaced_speed``), and the share of its threads it displaced there (what the
    simulator's groups give: entities/cpu.py); empty where the probe did not run."""
    decode = _speed(calls, "decode", "decode_cpu_displaced", "decode", math.nan)
    prefill = _speed(calls, "prefill", "prefill_cpu_displaced", "prefill", math.nan)
    speeds = [s for s in (decode, prefill) if math.isfinite(s) and s > 0]
    if not speeds:
        return {}
    kept = water_fill({"server": float(threads), "busy loop": 1.0}, float(cores))["server"]
    displaced = (min(float(threads), float(cores)) - kept) / threads
    out: dict[str, Any] = {
        "displaced_decode_speed": decode,
        "displaced_prefill_speed": prefill,
        "displaced_samples": len(probe_rows(calls, "decode_cpu_displaced", "prefill_cpu_displaced")),
    }
    if displaced > 0:
        out["displaced_speed"] = float(min(1.0, np.exp(np.mean(np.log(speeds)))))
        out["displaced_thread_share"] = float(displaced)
    return out


__all__ = ["CROWDED_KEYS", "batch_tokens", "fit_cpu", "fit_crowded", "fit_displaced"]
