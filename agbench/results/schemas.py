"""The published JSON Schemas (docs/*.schema.json), generated from the result models.

``schemas()`` is the one source; ``agbench schema --write docs`` writes it and
tests/test_result_schemas.py checks the committed files equal it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from agbench.results import SummaryFile, ValidationReport
from agbench.results.timeline import Timeline
from agbench.run_meta import RunMeta

_BASE = "https://agbench.invalid/schemas/"  # an identifier, never fetched


def _titled(schema: dict[str, Any], name: str, title: str, description: str) -> dict[str, Any]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": _BASE + name,
        "title": title,
        "description": description,
        **{k: v for k, v in schema.items() if k not in ("title", "description")},
    }


def _run_meta_schema() -> dict[str, Any]:
    """run.json: RunMeta's fields; ``extra`` (keys a newer writer added) is written flat."""
    schema = TypeAdapter(RunMeta).json_schema(mode="serialization")
    schema["properties"].pop("extra", None)
    schema["additionalProperties"] = True
    return schema


def schemas() -> dict[str, dict[str, Any]]:
    """File name -> JSON Schema, for every JSON document a run directory holds."""
    return {
        "summary.schema.json": _titled(
            TypeAdapter(SummaryFile).json_schema(mode="serialization"),
            "summary.schema.json",
            "agbench summary.json",
            "A run's summary (one entry per device x architecture x concurrency), a comparison "
            "of several runs, or a load run's per-level figures.",
        ),
        "validation.schema.json": _titled(
            ValidationReport.model_json_schema(mode="serialization"),
            "validation.schema.json",
            "agbench validation.json",
            "Simulated vs live figures per metric, written by agbench validate.",
        ),
        "run.schema.json": _titled(
            _run_meta_schema(),
            "run.schema.json",
            "agbench run.json",
            "How a run directory was made: source, device, agent, servers, options.",
        ),
        "timeline.schema.json": _titled(
            Timeline.model_json_schema(mode="serialization"),
            "timeline.schema.json",
            "agbench timeline.json",
            "A run's trace tables as a Chrome Trace Event document (Perfetto UI, chrome://tracing): "
            "spans per agent of each attempt, counters per configuration, track names.",
        ),
    }


def schema_text(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=False) + "\n"


def write_schemas(directory: Path) -> list[Path]:
    """Write every schema into ``directory``; returns the files written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in schemas().items():
        path = directory / name
        path.write_text(schema_text(schema), encoding="utf-8")
        written.append(path)
    return written


__all__ = ["schema_text", "schemas", "write_schemas"]
