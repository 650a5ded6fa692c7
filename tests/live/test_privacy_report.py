"""A guarded run's reports: summary.json's ``privacy_guard`` figures are typed, declared by the
published schema, and drawn in summary.html; a comparison with an unguarded run sets the
success cost on the comparison only.

One run is a real guarded run (``agbench run --provider mock --arch CO --privacy-guard redact``:
the mock provider behind the recording proxy, tools in bubblewrap); the other is the committed
reference run (copied), with ``privacy_guard.jsonl`` lines written by the live runner's own
writer for its CO C = 1 attempts, for figures the mock provider cannot produce (a detector that
misses, false positives, a comparison).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from agbench.attempt import AttemptKey
from agbench.cli import main
from agbench.config import Architecture, Configuration
from agbench.live.privacy.report_lines import write_guard_line
from agbench.metrics import read_tables
from agbench.report import write_reports
from agbench.results import ComparisonSummary, RunSummary, read_summary
from agbench.store import RunStore
from agbench.task import load_suite

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "calibration" / "reference" / "run"
KINDS = ["personal_identifier", "credential", "personal_record"]


def _validate(document: dict[str, object]) -> None:
    schema = json.loads((ROOT / "docs" / "summary.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(document)


@pytest.mark.bwrap
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed")
def test_a_guarded_run_keeps_the_items_from_the_cloud_and_reports_it(tmp_path: Path) -> None:
    out = tmp_path / "run"
    tasks = ["lf-largest-downloads", "sys-cron-backup"]
    args = ["run", "--provider", "mock", "--mock-wrong-rate", "0", "--arch", "CO", "--out", str(out)]
    args += [a for t in tasks for a in ("--task", t)] + ["--privacy-guard", "redact"]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output

    document = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    _validate(document)
    summary = read_summary(out / "summary.json")
    assert isinstance(summary, RunSummary)
    co = summary.configuration("CO", 1)
    guard = co.privacy_guard
    assert guard is not None
    assert not guard.model_extra
    assert (guard.mode, guard.detector, guard.attempts) == ("redact", "declared", 2)
    assert guard.exposure_ratio_unguarded > 0  # the requests carried declared items...
    assert guard.recall == 1.0
    assert guard.redacted_spans > 0
    assert co.exposure_ratio == 0.0  # ...and the cloud saw none of them
    assert co.success == 2
    raw = (out / "raw_responses.jsonl").read_text(encoding="utf-8")
    values = [i.item for t in load_suite() if t.id in tasks for i in t.sensitive_items]
    assert values
    assert not [v for v in values if v in raw]  # the raw log holds what the cloud saw
    assert "<h2>Privacy guard</h2>" in (out / "summary.html").read_text(encoding="utf-8")


def _guarded_copy(dest: Path) -> Path:
    shutil.copytree(REFERENCE, dest)
    runs = read_tables(RunStore.open(dest))["task_runs"]
    co1 = runs[(runs["architecture"] == "CO") & (runs["concurrency"] == 1)]
    for i, row in enumerate(co1.itertuples()):
        config = Configuration(str(row.device), Architecture.CO, 1)
        key = AttemptKey(str(row.run_id), config, str(row.task), int(row.attempt))
        report = {
            "mode": "redact",
            "detector": "presidio",
            "entities": [],
            "threshold": 0.4,
            "kinds": KINDS,
            "unguarded_items": [0, 1],
            "exposed_items": [1] if i == 0 else [],  # one credential slipped past the detector once
            "true_positive_by_kind": {"personal_identifier": 1, "credential": 1 if i else 0},
            "false_positive_by_label": {"URL": 1},
            "redacted_spans": 3,
            "blocked_calls": 0,
            "calls": 2,
            "guard_s": [0.002, 0.004],
        }
        write_guard_line(dest, key, report)
    return dest


def test_guard_figures_of_a_run_and_a_comparison(tmp_path: Path) -> None:
    guarded = _guarded_copy(tmp_path / "guarded")
    plain = tmp_path / "plain"
    shutil.copytree(REFERENCE, plain)
    write_reports([guarded, plain], tmp_path / "cmp")

    document = json.loads((guarded / "summary.json").read_text(encoding="utf-8"))
    _validate(document)
    summary = read_summary(guarded / "summary.json")
    assert isinstance(summary, RunSummary)
    co1 = summary.configuration("CO", 1)
    guard = co1.privacy_guard
    assert guard is not None
    assert not guard.model_extra  # every key the writer put there is a declared field
    tasks = co1.tasks
    assert (guard.mode, guard.detector, guard.attempts, guard.calls) == (
        "redact",
        "presidio",
        tasks,
        2 * tasks,
    )
    assert guard.recall_by_kind["personal_identifier"] == 1.0
    assert guard.recall_by_kind["credential"] == pytest.approx((tasks - 1) / tasks, abs=1e-6)
    assert guard.false_positive_by_label == {"URL": tasks}
    assert guard.success_cost is None  # a run alone has nothing to compare with
    written = [c for c in document["configurations"] if "privacy_guard" in c]
    assert [(c["architecture"], c["concurrency"]) for c in written] == [("CO", 1)]
    assert written[0]["privacy_guard"]["success_cost"] is None
    assert all(c.privacy_guard is None for c in summary.configurations if c.key != co1.key)

    page = (guarded / "summary.html").read_text(encoding="utf-8")
    assert "<h2>Privacy guard</h2>" in page
    assert "without the guard" in page  # the exposure plot's unguarded bars
    assert "Privacy guard" not in (plain / "summary.html").read_text(encoding="utf-8")

    comparison = read_summary(tmp_path / "cmp" / "summary.json")
    assert isinstance(comparison, ComparisonSummary)
    compared = [c for c in comparison.configurations if c.privacy_guard is not None]
    assert len(compared) == 1
    assert compared[0].privacy_guard is not None
    assert compared[0].privacy_guard.success_cost == 0.0  # both runs solved every CO C = 1 task
    assert compared[0].tag is not None
