"""A scenario's stated assumptions as ranges, and draws of profiles within them.

Assumed hardware (the paper's devices, an H200 nobody here measured) has no calibration data,
so no bootstrap can say how wrong its numbers may be. What such a scenario *can* say is how far
each assumed value might plausibly be off: an efficiency taken from the nearest published
benchmark, an overhead nobody measured. ``[uncertainty]`` mirrors the profile's tables and
gives each such field a ``[low, high]`` range (with its reason under ``sources``, as every
number in a scenario has one); ``agbench sim --draws N`` then repeats the simulation with each
field drawn uniformly and independently in its range. The spread that comes out is a
*sensitivity* range over the stated assumptions, not a calibrated interval, and is labelled so.

The calibrated draws (:func:`rate_draws`: bootstrap refits of a server profile x its measured
drift, with the CPU speeds of the same refits in :func:`server_draws`; calibration/intervals.py
explains them) live here too, beside the assumption draws, so
that the simulator's own callers (the what-if search) can draw either without calibration.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import norm as normal
from scipy.stats import t as student_t

from agbench.errors import AgbenchError
from agbench.sim.profiles import Profile


def _leaves(table: dict[str, Any], prefix: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in table.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, dict):
            out |= _leaves(value, name)
        else:
            out[name] = value
    return out


def read_uncertainty(
    table: dict[str, Any], profile: Profile, where: str
) -> tuple[dict[str, tuple[float, float]], dict[str, str]]:
    """(ranges, sources) of a scenario's ``[uncertainty]`` table; a range on a field the
    profile does not have, one not numeric, reversed, or excluding the field's stated value is
    a one-line error (a range that leaves out the point says the point is wrong: fix the point)."""
    ranges: dict[str, tuple[float, float]] = {}
    sources: dict[str, str] = {}
    stated = _leaves(profile.to_dict(), "")
    for name, value in _leaves(table, "").items():
        parts = name.split(".")
        if "sources" in parts[:-1]:
            i = parts.index("sources")
            sources[".".join(parts[:i] + parts[i + 1 :])] = str(value)
            continue
        if not (
            isinstance(value, list)
            and len(value) == 2
            and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
        ):
            raise AgbenchError(f"{where}: [uncertainty] {name} = {value!r} (allowed: [low, high])")
        low, high = float(value[0]), float(value[1])
        point = stated.get(name)
        if not isinstance(point, int | float) or isinstance(point, bool):
            raise AgbenchError(f"{where}: [uncertainty] {name}: the profile has no numeric {name}")
        if not low <= float(point) <= high:
            raise AgbenchError(
                f"{where}: [uncertainty] {name} = [{low:g}, {high:g}] leaves out its stated value {point:g}"
            )
        ranges[name] = (low, high)
    unsourced = sorted(set(ranges) - set(sources))
    if unsourced:
        raise AgbenchError(f"{where}: [uncertainty] no source for {', '.join(unsourced)}")
    return ranges, sources


def _overlay(name: str, value: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    node = out
    *tables, key = name.split(".")
    for t in tables:
        node = node.setdefault(t, {})
    node[key] = value
    return out


def assumption_overlays(
    ranges: dict[str, tuple[float, float]], stated: dict[str, Any], draws: int, seed: int = 0
) -> list[dict[str, Any]]:
    """``draws`` profile overlays, each field drawn uniformly in its range (independently);
    integer fields are rounded, so a core count stays a count."""
    rng = np.random.default_rng(seed)
    out: list[dict[str, Any]] = []
    for _ in range(max(draws, 0)):
        overlay: dict[str, Any] = {}
        for name, (low, high) in sorted(ranges.items()):
            value: float = float(rng.uniform(low, high)) if high > low else low
            if isinstance(stated.get(name), int):
                value = round(value)
            overlay = _merge(overlay, _overlay(name, value))
        out.append(overlay)
    return out


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out = dict(a)
    for k, v in b.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def stated_values(profile: Profile) -> dict[str, Any]:
    """The profile's values under their dotted names (``device.bandwidth_efficiency``)."""
    return _leaves(profile.to_dict(), "")


DECODE_FIELDS = (
    "decode_step_s",
    "decode_step_per_seq_s",
    "decode_step_per_kv_token_s",
    "decode_table_step_s",
    "decode_table_per_kv_token_s",
)
PREFILL_FIELDS = ("prefill_tok_s",)
MASKED_FIELDS = ("prefill_masked_batch_s_per_k", "prefill_masked_token_s_per_k", "prefill_batch_s")
RATE_FIELDS = (*DECODE_FIELDS, *PREFILL_FIELDS, *MASKED_FIELDS)


def has_bootstrap(fit: dict[str, Any]) -> bool:
    """Whether a calibrated profile's fit carries the server profile's bootstrap refits."""
    boot = fit.get("server_profile", {}).get("bootstrap", [])
    return isinstance(boot, list) and any(isinstance(b, dict) for b in boot)


def rate_draws(fit: dict[str, Any], draws: int, seed: int = 0) -> list[dict[str, Any]]:
    """``draws`` sets of server rates from a calibrated profile's ``fit.server_profile``
    (bootstrap resamples x the measured drift: between the profile's repetitions, and from the
    profile to the calibration run's configurations); empty when the profile has none."""
    source = fit.get("server_profile", {})
    boot = [dict(b) for b in source.get("bootstrap", []) if isinstance(b, dict)]
    if not boot or draws <= 0:
        return []
    # The larger of two measured spreads: the profile's repetitions minutes apart, and how far
    # the calibration run's configurations landed from the profile (calibration/run_drift.py);
    # the second holds most of the first, so they are not added.
    # Where calibration set the rates' level from the run's own C = 1 calls (``run_level``),
    # every draw is moved there too, and the run's spread is taken about that level (the
    # configurations' spread less their mean offset: RMS^2 - bias^2), not about the profile.
    noise, drift = source.get("noise", {}), source.get("run_drift", {})
    level = source.get("run_level", {})
    decode = _drift_law(noise.get("decode_rel_sd"), drift, "decode", bool(level))
    prefill = _drift_law(noise.get("prefill_rel_sd"), drift, "prefill", bool(level))
    level_d, level_p = float(level.get("decode", 1.0)), float(level.get("prefill", 1.0))
    # stratified: draw i takes the (p_i + 0.5) / N quantile of each law, p a seeded permutation
    # (one per kind, so the two are independent): N draws span each law evenly, and the
    # draws' median stays at the level however heavy the law's tails (a few random draws of
    # a Student t would move it, and with it the scored point, by their luck alone)
    rng = np.random.default_rng(seed)
    at_d = (rng.permutation(draws) + 0.5) / draws
    at_p = (rng.permutation(draws) + 0.5) / draws
    out: list[dict[str, Any]] = []
    for i in range(draws):
        slow_d = math.exp(decode.quantile(float(at_d[i])))
        slow_p = math.exp(prefill.quantile(float(at_p[i])))
        # batched decode steps drift with the prompt work (calibrate.level_rates)
        batched = level_p * slow_p if level else None
        out.append(scaled_rates(boot[i % len(boot)], level_d * slow_d, level_p * slow_p, batched=batched))
    return out


@dataclass(frozen=True)
class DriftLaw:
    """How a draw's server speed (log units) lies about its level: ``scale`` times a standard
    normal (``dof`` 0), or times a Student t with ``dof`` degrees of freedom."""

    scale: float
    dof: int = 0

    def quantile(self, at: float) -> float:
        """The law's value at cumulative probability ``at`` (0 < at < 1)."""
        if not self.scale:
            return 0.0
        return self.scale * float(student_t.ppf(at, self.dof) if self.dof else normal.ppf(at))


def _drift_law(noise_sd: Any, drift: dict[str, Any], kind: str, about_level: bool) -> DriftLaw:
    """The larger of the profile's repeat drift (normal) and the run's configuration spread.

    The run's spread comes from a handful of configurations (LO, HCL and HLL at C = 1: three),
    and a held-out configuration is a new one. The distribution of a new value from a normal
    whose spread was estimated from ``k`` values is a Student t: about the run's mean offset
    (``about_level``: the mean was estimated too) with ``k - 1`` degrees of freedom and the
    sample spread widened by ``sqrt(1 + 1/k)``, i.e. the RMS about the mean times
    ``sqrt((k + 1) / (k - 1))``; about zero with ``k`` degrees of freedom. With three
    configurations its 5-95 % band is 2.5x the normal one the point estimate gives. Three
    values say little of a spread: on the development set the C = 1 configurations spread 2-6 %
    about their level while the later configurations' alone calls ran at 0.80-1.11 of it
    (``bench/level_speed.py``). A calibration without the count draws the normal."""
    noise = DriftLaw(_finite(noise_sd))
    rms = _finite(drift.get(f"{kind}_rel_sd"))
    k = drift.get("configurations")
    spread = _about(rms, drift.get(f"{kind}_bias")) if about_level else rms
    if not spread:
        return noise
    if not isinstance(k, int) or isinstance(k, bool) or k < 2:  # how many is not known
        law = DriftLaw(spread)
    elif about_level:
        law = DriftLaw(spread * math.sqrt((k + 1) / (k - 1)), k - 1)
    else:
        law = DriftLaw(spread, k)
    return noise if noise.scale >= law.scale else law


def server_draws(fit: dict[str, Any], draws: int, seed: int = 0) -> list[dict[str, Any]]:
    """``draws`` server-table overlays: :func:`rate_draws`' rates, each with the CPU speeds
    (crowded, displaced, busy core) refitted on the same bootstrap resample where the profile
    kept them (``fit.server_profile.bootstrap_cpu``, calibration/server_profile.py)."""
    rates = rate_draws(fit, draws, seed)
    cpu = [c for c in fit.get("server_profile", {}).get("bootstrap_cpu", []) if isinstance(c, dict)]
    return [{"rates": r, **(cpu[i % len(cpu)] if cpu else {})} for i, r in enumerate(rates)]


def scaled_rates(
    rates: dict[str, Any], decode: float, prefill: float, batched: float | None = None
) -> dict[str, Any]:
    """A server rate table with its decode work ``decode`` times slower and its prompt work
    (per-token rate, fixed part, masked cells) ``prefill`` times slower; batch sizes, sources
    and every other key as they were. ``batched`` (default ``decode``): the factor for the
    decode steps of two or more sequences where the table measured them apart (its entries
    past batch 1, and the per-sequence growth past the table)."""
    factor = {
        **dict.fromkeys(DECODE_FIELDS, decode),
        **dict.fromkeys(PREFILL_FIELDS, 1.0 / prefill),  # a rate: slower work, fewer tokens/s
        **dict.fromkeys(MASKED_FIELDS, prefill),
    }
    out = {k: _scaled(v, factor[k]) if k in factor else v for k, v in rates.items()}
    sizes = rates.get("decode_table_batch")
    if batched is None or not isinstance(sizes, list | tuple) or not sizes:
        return out
    for key in ("decode_table_step_s", "decode_table_per_kv_token_s"):
        values = rates.get(key)
        if isinstance(values, list | tuple) and len(values) == len(sizes):
            out[key] = [
                float(v) * (decode if float(b) <= 1.0 else batched)
                for b, v in zip(sizes, values, strict=True)
            ]
    if "decode_step_per_seq_s" in rates:
        out["decode_step_per_seq_s"] = _scaled(rates["decode_step_per_seq_s"], batched)
    return out


def _about(rms: float, bias: Any) -> float:
    """The spread about the mean from the RMS about zero and the mean (log units)."""
    b = _finite(abs(bias)) if isinstance(bias, int | float) else 0.0  # NaN: _finite gives 0
    return math.sqrt(max(0.0, rms * rms - b * b))


def _scaled(value: Any, factor: float) -> Any:
    """A rate (a number, or a measured table's list) times ``factor``; batch sizes stay."""
    if isinstance(value, list | tuple):
        return [float(v) * factor for v in value]
    return float(value) * factor


def _finite(value: Any) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return 0.0
    return v if math.isfinite(v) and v > 0 else 0.0


def profile_overlays(
    profile: Profile, ranges: dict[str, tuple[float, float]], draws: int, seed: int = 0
) -> tuple[str, list[dict[str, Any]]]:
    """(kind, overlays) for ``draws`` draws of a profile: ``calibrated`` (bootstrap rates x
    drift) when its fit has bootstrap data, else ``assumptions`` over ``ranges``, else
    ``none`` with no overlay. The one rule the simulator's callers share (sim --draws, whatif)."""
    if has_bootstrap(profile.fit):
        return "calibrated", [{"server": d} for d in server_draws(profile.fit, draws, seed)]
    if ranges:
        return "assumptions", assumption_overlays(ranges, stated_values(profile), draws, seed)
    return "none", []


__all__ = [
    "DriftLaw",
    "assumption_overlays",
    "has_bootstrap",
    "profile_overlays",
    "rate_draws",
    "read_uncertainty",
    "scaled_rates",
    "server_draws",
    "stated_values",
]
