"""The published JSON Schemas (docs/*.schema.json) are the models' own, and real files validate.

Checked: the committed schema files equal what ``agbench schema --write`` generates; the
reference runs' summary.json (live task runs and a load run), a simulated run's and a
comparison's summary.json validate against docs/summary.schema.json; the timeline.json of the
reference runs (a task run and a load run) validates against docs/timeline.schema.json; every key
the project's writers put in a summary or a timeline is declared by the models (none lands in
``model_extra``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from agbench.cli import main
from agbench.config import Architecture
from agbench.errors import RunDirError
from agbench.report import write_reports
from agbench.results import ComparisonSummary, LoadSummary, ResultModel, RunSummary, read_summary
from agbench.results.schemas import schema_text, schemas
from agbench.results.timeline import TIMELINE_SCHEMA_VERSION, SpanEvent, read_timeline
from agbench.sim import run_matrix
from agbench.status import Status
from agbench.timeline import write_timeline

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
REFERENCE = ROOT / "calibration" / "reference"


def _validator(name: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((DOCS / name).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _undeclared(model: ResultModel, where: str = "") -> list[str]:
    """Keys of ``model`` (and its sub-models) that no field declares."""
    out = [f"{where}{k}" for k in (model.model_extra or {})]
    for name in type(model).model_fields:
        value = getattr(model, name)
        items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else [value]
        for i, item in enumerate(items):
            if isinstance(item, ResultModel):
                out += _undeclared(item, f"{where}{name}[{i}].")
    return out


@pytest.fixture(scope="module")
def sim_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("sims")
    runs = []
    for seed in (0, 1):
        runs.append(
            run_matrix(
                "paper-rtx5090",
                archs=[Architecture.LO, Architecture.CO],
                concurrency=[1, 4],
                seed=seed,
                out_dir=root / f"sim{seed}",
                limit=2,
            )
        )
    return runs[0], runs[1]


def test_committed_schemas_are_the_generated_ones() -> None:
    for name, schema in schemas().items():
        committed = (DOCS / name).read_text(encoding="utf-8")
        assert committed == schema_text(schema), f"docs/{name} is stale: run `agbench schema --write docs`"


def test_schema_command_checks_and_prints(tmp_path: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(main, ["schema", "--check", str(DOCS)]).exit_code == 0
    (tmp_path / "summary.schema.json").write_text("{}\n")
    stale = runner.invoke(main, ["schema", "--check", str(tmp_path)])
    assert stale.exit_code == 1
    assert "stale" in stale.output
    printed = runner.invoke(main, ["schema", "summary"])
    assert json.loads(printed.output)["title"] == "agbench summary.json"
    unknown = runner.invoke(main, ["schema", "nope"])
    assert unknown.exit_code == 2
    assert unknown.output.startswith("agbench: error: unknown schema")


@pytest.mark.parametrize("run", ["run", "model", "load"])
def test_reference_summaries_validate(run: str) -> None:
    path = REFERENCE / run / "summary.json"
    _validator("summary.schema.json").validate(json.loads(path.read_text(encoding="utf-8")))
    summary = read_summary(path)
    assert isinstance(summary, LoadSummary if run == "load" else RunSummary)
    assert _undeclared(summary) == []


def test_reference_run_reads_as_typed_figures() -> None:
    summary = read_summary(REFERENCE / "run" / "summary.json")
    assert isinstance(summary, RunSummary)
    lo1 = summary.configuration("LO", 1)
    assert lo1.architecture is Architecture.LO
    assert (lo1.tasks, lo1.success) == (8, 8)
    assert summary.totals.failures[Status.CONTEXT_LIMIT] == 16
    assert lo1.serving["local"].ttft_s.p50 == lo1.ttft_p50_s
    with pytest.raises(KeyError):
        summary.configuration("LO", 3)


def test_sim_and_comparison_summaries_validate(sim_runs: tuple[Path, Path], tmp_path: Path) -> None:
    validator = _validator("summary.schema.json")
    for run_dir in sim_runs:
        document: dict[str, Any] = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
        validator.validate(document)
        assert document["schema_version"] == 1
        summary = read_summary(run_dir / "summary.json")
        assert isinstance(summary, RunSummary)
        assert _undeclared(summary) == []
        # the typed view writes back the very document it read
        assert summary.to_json_dict() == document
    write_reports(list(sim_runs), tmp_path / "cmp")
    comparison = json.loads((tmp_path / "cmp" / "summary.json").read_text(encoding="utf-8"))
    validator.validate(comparison)
    typed = read_summary(tmp_path / "cmp" / "summary.json")
    assert isinstance(typed, ComparisonSummary)
    assert _undeclared(typed) == []
    assert {c.tag for c in typed.configurations} == {r.tag for r in typed.runs}


def test_a_summary_missing_a_required_figure_does_not_validate(sim_runs: tuple[Path, Path]) -> None:
    document = json.loads((sim_runs[0] / "summary.json").read_text(encoding="utf-8"))
    del document["configurations"][0]["success"]
    with pytest.raises(jsonschema.ValidationError):
        _validator("summary.schema.json").validate(document)
    document = json.loads((sim_runs[0] / "summary.json").read_text(encoding="utf-8"))
    document["configurations"][0]["architecture"] = "XX"
    with pytest.raises(jsonschema.ValidationError):
        _validator("summary.schema.json").validate(document)


@pytest.mark.parametrize("run", ["run", "load"])
def test_reference_timelines_validate(run: str, tmp_path: Path) -> None:
    """The reference runs hold no timeline.json (a report writes it): it is written from a copy
    of their trace tables, so the committed directories stay as recorded."""
    run_dir = tmp_path / run
    shutil.copytree(REFERENCE / run, run_dir)
    path = write_timeline(run_dir)
    document = json.loads(path.read_text(encoding="utf-8"))
    _validator("timeline.schema.json").validate(document)
    timeline = read_timeline(path)
    assert timeline.other_data.schema_version == TIMELINE_SCHEMA_VERSION
    assert _undeclared(timeline) == []
    assert timeline.to_json_dict() == document  # the typed view writes back what it read
    assert any(isinstance(e, SpanEvent) and e.cat == "model" for e in timeline.trace_events)


def test_a_timeline_event_of_an_unknown_phase_does_not_validate(tmp_path: Path) -> None:
    document = {"traceEvents": [{"name": "x", "ph": "B", "pid": 1, "ts": 0}], "otherData": {}}
    with pytest.raises(jsonschema.ValidationError):
        _validator("timeline.schema.json").validate(document)
    path = tmp_path / "timeline.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(RunDirError, match="traceEvents"):
        read_timeline(path)
