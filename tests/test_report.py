"""Report files written from real run directories (journals → Parquet → reports)."""

from __future__ import annotations

import csv
import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from agbench.errors import AgbenchError, RunDirError, SchemaVersionError
from agbench.records import SCHEMA_VERSION, Exposure, ModelCall, ServerSample, TaskRun
from agbench.report import write_reports
from agbench.store import AttemptKey, RunStore

CONTRACT_KEYS = {
    "device", "architecture", "concurrency", "tasks", "success", "suite_wall_s", "goodput_per_h",
    "mean_completion_s_common", "cloud_cost_usd", "cloud_calls", "exposure_ratio", "failures", "time_breakdown_s",
}  # fmt: skip
CSV_COLUMNS = [
    "device",
    "architecture",
    "concurrency",
    "task",
    "category",
    "attempt",
    "status",
    "reward",
    "wall_s",
]


def make_run(
    root: Path, source: str = "live", meta: dict[str, Any] | None = None, scale: float = 1.0
) -> Path:
    """A small two-architecture, two-concurrency run written through the journal path."""
    base = {
        "source": source,
        "run_id": f"{source}-run",
        "agent_kind": "replay",
        "device": "box",
        "model": "smollm2-135m",
        "server": {"n_ctx": 4096, "n_parallel": 2},
        "git_commit": "abc123",
        "seed": 7,
        "cloud_standin": True,
    }
    store = RunStore.create(root, {**base, **(meta or {})})
    t = 0.0
    for arch in ("LO", "HCL"):
        for conc in (1, 2):
            config = f"box|{arch}|{conc}"
            for i, (task, category) in enumerate([("calc-1", "calculation"), ("files-1", "local_files")]):
                status = "success" if (i == 0 or arch == "HCL") else "context_limit"
                with store.attempt_writer(AttemptKey.parse("r", f"{config}|{task}|1")) as journal:
                    start, end = t, t + 10 * scale * (1 + i)
                    journal.write(ModelCall("r", "box", arch, conc, task, 1, "local", "local", f"{config}{task}", start,
                                            ttft_s=0.2 * scale, output_tok_s=40 / scale, total_s=2.0))  # fmt: skip
                    if arch == "HCL":
                        journal.write(ModelCall("r", "box", arch, conc, task, 1, "cloud", "cloud", f"c{config}{task}",
                                                start, ttft_s=0.8, output_tok_s=90.0, cost_usd=0.001))  # fmt: skip
                        journal.write(
                            Exposure("r", "box", arch, conc, task, 1, "alice@example.com", start, "request")
                        )
                    journal.write(
                        TaskRun(
                            "r",
                            "box",
                            arch,
                            conc,
                            "replay",
                            task,
                            category,
                            1,
                            start,
                            end,
                            status,
                            reward=1.0 if status == "success" else 0.0,
                            reason="checked",
                            local_model_s=5.0,
                            cloud_model_s=2.0 if arch == "HCL" else 0.0,
                            tools_s=1.0,
                            other_s=0.5,
                            cloud_cost_usd=0.001 if arch == "HCL" else 0.0,
                            cloud_calls=1 if arch == "HCL" else 0,
                            sensitive_total=1,
                        )
                    )
                    t = end
            samples = store.sample_writer(f"server-{config}")
            for k in range(5):
                samples.write(
                    ServerSample("r", "box", arch, conc, "local", t=float(k), kv_used=100 * k, kv_total=1000)
                )
    # An attempt the run was killed in the middle of: left without a task_runs row.
    with store.attempt_writer(AttemptKey.parse("r", "box|LO|1|calc-2|1")) as journal:
        journal.write(ModelCall("r", "box", "LO", 1, "calc-2", 1, "local", "local", "x", 0.0, ttft_s=99.0))
    store.mark_interrupted()
    store.compact()
    return root


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.external: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("src", "href", "xlink:href") and value and re.match(r"\s*(https?:)?//", value):
                self.external.append(value)


def parse_page(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    return page


def test_one_run_writes_every_report_file(tmp_path: Path) -> None:
    run_dir = make_run(tmp_path / "run", meta={"cloud": {"api_key": "sk-do-not-leak"}})
    written = write_reports([run_dir])
    assert {p.name for p in written} == {
        "summary.json",
        "summary.html",
        "results.csv",
        "graded_results.jsonl",
        "timeline.json",
    }
    assert sorted(p.name for p in (run_dir / "traces").glob("*.parquet"))  # the trace tables

    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["source"] == "live"
    assert summary["agent_kind"] == "replay"
    assert "cloud stand-in" in summary["labels"]
    assert summary["meta"]["git_commit"] == "abc123"
    assert summary["meta"]["seed"] == 7
    assert len(summary["configurations"]) == 4
    for conf in summary["configurations"]:
        assert set(conf) >= CONTRACT_KEYS
        assert set(conf["time_breakdown_s"]) == {"local_model", "cloud_model", "tools", "other"}
        assert {"context_limit", "execution_error", "timeout", "verification_failed"} <= set(conf["failures"])
    lo1 = next(c for c in summary["configurations"] if (c["architecture"], c["concurrency"]) == ("LO", 1))
    assert (lo1["tasks"], lo1["success"], lo1["failures"]["context_limit"]) == (2, 1, 1)
    assert lo1["ttft_p50_s"] == pytest.approx(0.2)  # the interrupted attempt's 99 s call is not counted
    assert lo1["mean_completion_s_common"] == pytest.approx(10.0)  # only calc-1 was solved by both

    with (run_dir / "results.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0])[: len(CSV_COLUMNS)] == CSV_COLUMNS
    assert len(rows) == 9  # 8 finished attempts + the interrupted one, kept for audit
    interrupted = [r for r in rows if r["status"] == "interrupted"]
    assert len(interrupted) == 1
    assert interrupted[0]["counted"] == "False"

    graded = [json.loads(line) for line in (run_dir / "graded_results.jsonl").read_text().splitlines()]
    assert len(graded) == 9
    assert {g["status"] for g in graded} == {"success", "context_limit", "interrupted"}
    assert all(isinstance(g["reward"], float) for g in graded)

    page = parse_page(run_dir / "summary.html")
    assert page.tags.count("svg") >= 9  # every figure, KV usage and distributions included
    assert page.external == []
    assert "script" not in page.tags
    assert "link" not in page.tags
    text = (run_dir / "summary.html").read_text()
    assert "replay" in text
    assert "cloud stand-in" in text
    assert "sk-do-not-leak" not in text
    assert "sk-do-not-leak" not in (run_dir / "summary.json").read_text()
    assert "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "").replace(
        'xmlns:xlink="http://www.w3.org/1999/xlink"', ""
    )


@pytest.mark.slow
def test_report_rewrites_are_stable(tmp_path: Path) -> None:
    run_dir = make_run(tmp_path / "run")
    write_reports([run_dir])
    first = (run_dir / "summary.json").read_text()
    write_reports([run_dir])
    assert (run_dir / "summary.json").read_text() == first


@pytest.mark.slow
def test_live_and_sim_compared_side_by_side(tmp_path: Path) -> None:
    live = make_run(tmp_path / "live", "live")
    sim = make_run(tmp_path / "sim", "sim", scale=1.2)
    written = write_reports([live, sim])
    comparison = tmp_path / "comparison"
    assert comparison / "summary.json" in written
    assert comparison / "summary.html" in written
    summary = json.loads((comparison / "summary.json").read_text())
    assert summary["sources"] == ["live", "sim"]
    assert [r["tag"] for r in summary["runs"]] == ["live", "sim"]
    assert len(summary["configurations"]) == 8
    assert {c["source"] for c in summary["configurations"]} == {"live", "sim"}
    assert all(set(c) >= CONTRACT_KEYS for c in summary["configurations"])
    page = parse_page(comparison / "summary.html")
    assert page.external == []
    assert page.tags.count("svg") >= 9
    text = (comparison / "summary.html").read_text()
    assert "[sim] LO C=1" in text
    assert "[live] LO C=1" in text
    assert (live / "summary.html").is_file()
    assert (sim / "summary.json").is_file()

    elsewhere = tmp_path / "elsewhere"
    write_reports([live, sim], elsewhere)
    assert (elsewhere / "summary.html").is_file()

    # a comparison that cannot go where asked stops before any run's report is rewritten
    before = {p: p.read_bytes() for run in (live, sim) for p in run.iterdir() if p.is_file()}
    (tmp_path / "a-file").write_text("")
    bad = {tmp_path / "a-file": "is not a directory", live: "is a run directory: give the comparison another"}
    for out, message in bad.items():
        with pytest.raises(RunDirError) as info:
            write_reports([live, sim], out)
        assert message in _one_line(info.value)
    with pytest.raises(RunDirError) as info:
        write_reports([live], elsewhere)
    assert "--out is where a comparison of several runs goes" in _one_line(info.value)
    assert {p: p.read_bytes() for p in before} == before


def _one_line(exc: AgbenchError) -> str:
    message = str(exc)
    assert "\n" not in message
    assert message
    return message


def test_missing_run_dir(tmp_path: Path) -> None:
    with pytest.raises(RunDirError) as info:
        write_reports([tmp_path / "nope"])
    assert "not found" in _one_line(info.value)


def test_directory_that_is_not_a_run(tmp_path: Path) -> None:
    with pytest.raises(RunDirError) as info:
        write_reports([tmp_path])
    assert "not an agbench run" in _one_line(info.value)


def test_corrupt_run_json(tmp_path: Path) -> None:
    run_dir = make_run(tmp_path / "run")
    (run_dir / "run.json").write_text("{not json")
    with pytest.raises(RunDirError) as info:
        write_reports([run_dir])
    assert "unreadable" in _one_line(info.value)


def test_corrupt_parquet(tmp_path: Path) -> None:
    run_dir = make_run(tmp_path / "run")
    (run_dir / "traces" / "model_calls.parquet").write_bytes(b"PAR1 this is not parquet")
    with pytest.raises(RunDirError) as info:
        write_reports([run_dir])
    assert "corrupt" in _one_line(info.value)


def test_newer_schema(tmp_path: Path) -> None:
    run_dir = make_run(tmp_path / "run")
    meta = json.loads((run_dir / "run.json").read_text())
    (run_dir / "run.json").write_text(json.dumps({**meta, "schema": SCHEMA_VERSION + 1}))
    with pytest.raises(SchemaVersionError) as info:
        write_reports([run_dir])
    assert "newer" in _one_line(info.value)


def test_newer_journal_schema(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", {"source": "live"})
    path = store.attempt_path(AttemptKey.parse("r", "box|LO|1|t|1"))
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"schema": SCHEMA_VERSION + 1, "kind": "attempt"}) + "\n")
    with pytest.raises(SchemaVersionError) as info:
        write_reports([tmp_path / "run"])
    assert "newer" in _one_line(info.value)


def test_run_with_no_finished_task(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", {"source": "live", "run_id": "empty"})
    with store.attempt_writer(AttemptKey.parse("r", "box|LO|1|t|1")) as journal:
        journal.write(ModelCall("r", "box", "LO", 1, "t", 1, "local", "local", "x", 0.0))
    store.mark_interrupted()
    with pytest.raises(RunDirError) as info:
        write_reports([tmp_path / "run"])
    assert "no finished task" in _one_line(info.value)
    assert not (tmp_path / "run" / "summary.json").exists()


def test_text_from_a_run_is_escaped_never_markup(tmp_path: Path) -> None:
    """A task name, a verifier's reason, an answer and run metadata are the run's text, not
    the page's: the templates escape every value, so ``<script>`` in any of them is shown."""
    hostile = "<script>alert('x')</script>"
    task = f"calc{hostile}"
    store = RunStore.create(
        tmp_path / "run",
        {"source": "live", "run_id": f"r{hostile}", "agent_kind": "replay", "device": "box", "note": hostile},
    )
    key = AttemptKey.of("r", "box", "LO", 1, task, 1)
    with store.attempt_writer(key) as journal:
        journal.write(ModelCall(**key.ids(), agent="local", endpoint="local", call_id="c1", t_start=0.0,
                                ttft_s=0.2, output_tok_s=40.0, total_s=1.0))  # fmt: skip
        journal.write(TaskRun(**key.ids(), agent_kind="replay", category="calculation", t_start=0.0, t_end=2.0,
                              status="verification_failed", reward=0.0, reason=f"expected 4 {hostile}",
                              answer=f"4 {hostile}"))  # fmt: skip
    store.compact()
    write_reports([store.root])
    page = parse_page(store.root / "summary.html")
    assert "script" not in page.tags
    text = (store.root / "summary.html").read_text(encoding="utf-8")
    assert "<script" not in text
    escaped = "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"
    assert f"<b>calc{escaped}</b>" in text  # the task name in the task table
    assert f"expected 4 {escaped}" in text  # the verifier's reason
    assert text.count(escaped) >= 4  # and the title, the run id and the metadata table


def test_the_load_page_escapes_its_labels() -> None:
    from agbench.report.load import render_load
    from agbench.results.load_summary import LoadLevel, LoadSummary

    hostile = "<script>alert(1)</script>"
    level = LoadLevel.model_validate({"level": f"rate-1{hostile}", "kind": "rate", "requests": 1})
    page = render_load(LoadSummary(run_id=hostile, device=hostile, labels=[hostile], levels=[level]))
    assert "<script" not in page
    assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;") == 4  # title, heading, label, level


LOAD_REFERENCE = Path(__file__).resolve().parents[1] / "calibration" / "reference" / "load"


@pytest.mark.skipif(not (LOAD_REFERENCE / "run.json").is_file(), reason="the load reference is not here")
def test_report_of_a_load_run_writes_its_load_page_and_refuses_a_mixed_comparison(tmp_path: Path) -> None:
    load_dir = tmp_path / "load"
    shutil.copytree(LOAD_REFERENCE, load_dir)
    (load_dir / "summary.html").unlink()
    written = write_reports([load_dir])
    assert load_dir / "summary.html" in written
    page = (load_dir / "summary.html").read_text()
    assert "rate-1" in page  # one of its levels, not a configuration table
    with pytest.raises(RunDirError) as info:
        write_reports([load_dir, make_run(tmp_path / "agents")])
    assert "cannot compare a load run" in _one_line(info.value)
