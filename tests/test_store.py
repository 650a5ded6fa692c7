"""The run store: journals survive kills, resume never double-counts, bad input is one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agbench.attempt import AttemptKey, RunScope
from agbench.config import Architecture, Configuration
from agbench.errors import RunDirError, SchemaVersionError
from agbench.journal import read_journal
from agbench.records import SCHEMA_VERSION, TABLES, ModelCall, TaskRun, ToolCall, arrow_schema
from agbench.run_meta import RunMeta, RunSource
from agbench.status import Status
from agbench.store import RunStore, copy_to_latest

CONFIG = "dev|LO|1"
SCOPE = RunScope("r", Configuration("dev", Architecture.LO, 1))


def key(task: str, attempt: int = 1) -> AttemptKey:
    return SCOPE.attempt(task, attempt)


def _task_run(task: str, attempt: int = 1, status: str = "success") -> TaskRun:
    return TaskRun("r", "dev", "LO", 1, "replay", task, "local_files", attempt, 0.0, 5.0, status, 1.0)


def _model_call(task: str, n: int) -> ModelCall:
    return ModelCall(
        "r", "dev", "LO", 1, task, 1, "local", "local", f"c{n}", float(n), ttft_s=0.1, total_s=0.5
    )


def test_finished_attempt_is_found_after_reopen(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", {"run_id": "r", "source": "live"})
    with store.attempt_writer(key("a")) as w:
        w.write(_model_call("a", 1))
        w.write(_task_run("a"))
    with store.attempt_writer(key("b")) as w:
        w.write(_model_call("b", 2))
    reopened = RunStore.open(tmp_path / "run")
    assert reopened.finished_pairs() == {(CONFIG, "a")}
    assert reopened.next_attempt(CONFIG, "b") == 2
    assert reopened.next_attempt(CONFIG, "c") == 1


def test_mark_interrupted_keeps_partial_attempt_and_never_counts_it(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", {"run_id": "r"})
    with store.attempt_writer(key("b")) as w:
        w.write(_model_call("b", 7))
    marked = store.mark_interrupted()
    assert marked == [key("b")]
    assert store.mark_interrupted() == []  # idempotent
    assert store.attempts()[key("b")] is Status.INTERRUPTED
    assert store.finished_pairs() == set()
    # The re-run is a new attempt; the partial one stays in the traces.
    with store.attempt_writer(key("b", store.next_attempt(CONFIG, "b"))) as w:
        w.write(_task_run("b", attempt=2))
    runs = store.table("task_runs").sort_values("attempt")
    assert list(runs["status"]) == ["interrupted", "success"]
    assert store.finished_pairs() == {(CONFIG, "b")}
    assert len(store.table("model_calls")) == 1


def test_truncated_last_line_is_recovered(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", {"run_id": "r"})
    attempt = key("a")
    with store.attempt_writer(attempt) as w:
        w.write(_model_call("a", 1))
    path = store.attempt_path(attempt)
    with path.open("a") as fh:
        fh.write('{"table":"model_calls","row":{"run_id":"r","dev')  # killed mid-write
    contents = read_journal(path)
    assert contents.dropped_lines == 1
    assert len(contents.rows["model_calls"]) == 1
    # A writer re-opening the file starts on a fresh line, so its rows are not lost.
    with store.attempt_writer(attempt) as w:
        w.write(_task_run("a"))
    assert read_journal(path).rows["task_runs"][0]["task"] == "a"


def test_kill_during_writes_loses_at_most_the_line_being_written(tmp_path: Path) -> None:
    run = tmp_path / "run"
    RunStore.create(run, {"run_id": "r"})
    script = textwrap.dedent(
        f"""
        import sys
        from agbench.attempt import AttemptKey
        from agbench.store import RunStore
        from agbench.records import ModelCall
        store = RunStore.open(__import__('pathlib').Path({str(run)!r}))
        w = store.attempt_writer(AttemptKey.parse("r", {CONFIG!r} + "|a|1"))
        i = 0
        while True:
            w.write(ModelCall("r", "dev", "LO", 1, "a", 1, "local", "local", "c%d" % i, float(i)))
            i += 1
            if i == 200:
                print("ready", flush=True)
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == b"ready"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    store = RunStore.open(run)
    assert store.mark_interrupted() == [key("a")]
    calls = store.table("model_calls")
    assert len(calls) >= 200
    assert list(calls["call_id"]) == [f"c{i}" for i in range(len(calls))]


def test_compaction_writes_every_table_with_its_schema(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", {"run_id": "r"})
    with store.attempt_writer(key("a")) as w:
        w.write(ToolCall("r", "dev", "LO", 1, "a", 1, "local", "t1", "read_file", 1.0, wall_s=0.2))
        w.write(_task_run("a"))
    store.append_columns("tool_calls", {"run_id": ["r"], "tool": ["list_dir"], "wall_s": [0.1]})
    store.compact()
    for table in TABLES:
        assert (store.traces_dir / f"{table}.parquet").is_file()
        assert list(store.table(table).columns) == arrow_schema(table).names
    assert sorted(store.table("tool_calls")["tool"]) == ["list_dir", "read_file"]
    con = store.duckdb()
    assert con.execute("SELECT count(*) FROM task_runs WHERE status = 'success'").fetchone() == (1,)


def test_newer_journal_schema_is_refused(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", {"run_id": "r"})
    path = store.attempt_path(key("a"))
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"schema": SCHEMA_VERSION + 1, "kind": "attempt"}) + "\n")
    with pytest.raises(SchemaVersionError, match="newer"):
        store.attempts()


def test_open_errors_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(RunDirError, match="not found"):
        RunStore.open(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(RunDirError, match="not an agbench run directory"):
        RunStore.open(tmp_path / "empty")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "run.json").write_text("{not json")
    with pytest.raises(RunDirError, match="unreadable"):
        RunStore.open(tmp_path / "bad")
    RunStore.create(tmp_path / "twice", {})
    with pytest.raises(RunDirError, match="already holds a run"):
        RunStore.create(tmp_path / "twice", {})


def test_copy_to_latest_replaces_previous(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    for name in ("one", "two"):
        RunStore.create(runs / name, {"run_id": name})
        (runs / name / "summary.json").write_text(json.dumps({"run": name}))
        copy_to_latest(runs / name, runs)
    assert json.loads((runs / "latest" / "summary.json").read_text()) == {"run": "two"}


def test_bulk_parts_compact_idempotently_and_accept_later_appends(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", {"run_id": "r"})
    n = 70_000  # over one buffered batch
    store.append_columns("tool_calls", {"run_id": ["r"] * n, "tool": ["python"] * n, "wall_s": [0.5] * n})
    store.compact()
    store.compact()  # twice gives the same table
    assert len(store.table("tool_calls")) == n
    store.append_columns("tool_calls", {"run_id": ["r"], "tool": ["list_dir"], "wall_s": [0.1]})
    store.compact()
    frame = RunStore.open(tmp_path / "run").table("tool_calls")
    assert len(frame) == n + 1
    assert frame["wall_s"].sum() == pytest.approx(n * 0.5 + 0.1)


def test_interrupted_row_takes_its_identity_from_the_journal_header(tmp_path: Path) -> None:
    """mark_interrupted reads the header's own fields, so a device name is never re-split."""
    store = RunStore.create(tmp_path / "run", {"run_id": "r", "agent_kind": "replay"})
    odd = RunScope("r", Configuration("my.box-2", Architecture.HLL, 4)).attempt("t-1", 3)
    with store.attempt_writer(odd, task_info={"category": "office"}) as w:
        w.write(_model_call("t-1", 1))
    assert store.mark_interrupted() == [odd]
    row = store.table("task_runs").iloc[0]
    assert (row["device"], row["architecture"], row["concurrency"], row["task"], row["attempt"]) == (
        "my.box-2", "HLL", 4, "t-1", 3,
    )  # fmt: skip
    assert (row["agent_kind"], row["category"], row["status"]) == ("replay", "office", "interrupted")


def test_run_meta_round_trips_and_keeps_unknown_keys(tmp_path: Path) -> None:
    meta = RunMeta(run_id="r", source=RunSource.SIM, device="pi5", agent_kind="sim-replay", seed=3)
    meta.extra["future_field"] = {"x": 1}
    store = RunStore.create(tmp_path / "run", meta)
    raw = store.meta()
    assert raw["source"] == "sim"
    assert raw["future_field"] == {"x": 1}
    assert "backend" not in raw
    again = store.run_meta()
    assert again.to_dict() == raw
    assert (again.source, again.device, again.seed) == (RunSource.SIM, "pi5", 3)
    old = RunMeta.from_dict({"run_id": "old", "cloud": {"model": "m", "prices": {"output_per_m": 1.0}}})
    assert old.cloud is not None
    assert old.cloud.prices.output_per_m == 1.0
    assert old.source is RunSource.LIVE
