"""Typed, versioned models of the JSON files agbench writes, and their published JSON Schemas.

- ``summary.json``: :class:`RunSummary` (one run), :class:`ComparisonSummary` (several runs),
  :class:`LoadSummary` (an open-loop load run); :func:`read_summary` reads any of them.
- ``validation.json``: :class:`ValidationReport`.
- ``run.json``: agbench.run_meta.RunMeta (its schema is published beside the others).
- ``timeline.json``: :class:`Timeline` (agbench.results.timeline), read by :func:`read_timeline`.

``agbench schema --write docs`` regenerates docs/*.schema.json from these models; a test checks
the committed files equal the generated ones.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agbench.errors import RunDirError
from agbench.results.load_summary import LoadLevel, LoadSummary
from agbench.results.summary import (
    SUMMARY_SCHEMA_VERSION,
    ComparisonSummary,
    ConfigurationSummary,
    ResultModel,
    RunSummary,
)
from agbench.results.timeline import Timeline, read_timeline
from agbench.results.validation import ValidationReport

#: Any summary.json: a comparison says ``"comparison": true``, a load run has ``levels``.
SummaryFile = ComparisonSummary | LoadSummary | RunSummary


def parse_summary(
    data: dict[str, Any], where: str = "summary.json"
) -> RunSummary | ComparisonSummary | LoadSummary:
    """The model of a summary document (one-line RunDirError when it is not one)."""
    try:
        if data.get("comparison"):
            return ComparisonSummary.model_validate(data)
        if "levels" in data and "configurations" not in data:
            return LoadSummary.model_validate(data)
        return RunSummary.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(part) for part in error["loc"])
        raise RunDirError(f"{where}: {key}: {error['msg']}") from None


def read_summary(path: Path) -> RunSummary | ComparisonSummary | LoadSummary:
    """Read a summary.json file (one-line RunDirError when missing or malformed)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise RunDirError(f"cannot read {path}: {exc}") from None
    if not isinstance(data, dict):
        raise RunDirError(f"{path}: not a summary (a JSON object expected)")
    return parse_summary(data, str(path))


def read_run_summary(path: Path) -> RunSummary:
    """Read the summary.json of one task run (not a comparison or a load run)."""
    summary = read_summary(path)
    if not isinstance(summary, RunSummary):
        raise RunDirError(f"{path}: not the summary of one task run")
    return summary


__all__ = [
    "SUMMARY_SCHEMA_VERSION",
    "ComparisonSummary",
    "ConfigurationSummary",
    "LoadLevel",
    "LoadSummary",
    "ResultModel",
    "RunSummary",
    "SummaryFile",
    "Timeline",
    "ValidationReport",
    "parse_summary",
    "read_run_summary",
    "read_summary",
    "read_timeline",
]
