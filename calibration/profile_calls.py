"""The calls ``agbench profile-server`` recorded (``profile_calls.jsonl``), as the fits read them:
the file's calls, one probe's successful calls, and the span of a measured quantity (a fit's
data range)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agbench.errors import AgbenchError


def read_calls(path: Path) -> list[dict[str, Any]]:
    """Every call of a ``profile_calls.jsonl``; a line that is not JSON is a one-line error."""
    calls = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                calls.append(json.loads(line))
            except json.JSONDecodeError:
                raise AgbenchError(f"{path}:{n}: not a JSON line") from None
    return calls


def probe_rows(calls: list[dict[str, Any]], *probes: str) -> list[dict[str, Any]]:
    """The calls of these probes that succeeded."""
    return [c for c in calls if c["probe"] in probes and not c.get("error_class")]


def value_span(values: Any) -> list[float]:
    """[min, max] of the values; empty when there are none."""
    v = [float(x) for x in values]
    return [min(v), max(v)] if v else []


__all__ = ["probe_rows", "read_calls", "value_span"]
