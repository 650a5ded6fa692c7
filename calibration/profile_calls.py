"""The calls ``agbench profile-server`` recorded (``profile_calls.jsonl``), as the fits read them:
one probe's successful calls, and the span of a measured quantity (a fit's data range)."""

from __future__ import annotations

from typing import Any


def probe_rows(calls: list[dict[str, Any]], *probes: str) -> list[dict[str, Any]]:
    """The calls of these probes that succeeded."""
    return [c for c in calls if c["probe"] in probes and not c.get("error_class")]


def value_span(values: Any) -> list[float]:
    """[min, max] of the values; empty when there are none."""
    v = [float(x) for x in values]
    return [min(v), max(v)] if v else []


__all__ = ["probe_rows", "value_span"]
