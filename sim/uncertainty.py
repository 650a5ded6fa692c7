"""A scenario's stated assumptions as ranges, and draws of profiles within them.

Assumed hardware (the paper's devices, an H200 nobody here measured) has no calibration data,
so no bootstrap can say how wrong its numbers may be. What such a scenario *can* say is how far
each assumed value might plausibly be off: an efficiency taken from the nearest published
benchmark, an overhead nobody measured. ``[uncertainty]`` mirrors the profile's tables and
gives each such field a ``[low, high]`` range (with its reason under ``sources``, as every
number in a scenario has one); ``agbench sim --draws N`` then repeats the simulation with each
field drawn uniformly and independently in its range. The spread that comes out is a
*sensitivity* range over the stated assumptions, not a calibrated interval, and is labelled so.
"""

from __future__ import annotations

from typing import Any

import numpy as np

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


__all__ = ["assumption_overlays", "read_uncertainty", "stated_values"]
