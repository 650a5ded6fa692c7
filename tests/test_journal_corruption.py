"""A journal with corrupt lines (torn, not an object, binary noise) still reads: the lines are
dropped with a warning and the attempt's rows survive (what a resume relies on)."""

from __future__ import annotations

from pathlib import Path

from agbench.journal import JournalWriter, read_journal
from agbench.records import TaskRun


def test_corrupt_lines_are_dropped_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "1.jsonl"
    with JournalWriter(path, {"kind": "attempt", "task": "t"}) as writer:
        writer.write(
            TaskRun(
                run_id="r",
                device="d",
                architecture="LO",
                concurrency=1,
                agent_kind="null",
                task="t",
                category="c",
                attempt=1,
                t_start=0.0,
                t_end=1.0,
                status="success",
            )
        )
    with path.open("ab") as f:
        f.write(b'[1, 2, 3]\n"just a string"\n\x00\xff garbage\n')
        f.write(b'{"table": "task_runs", "row": {"sta')
    contents = read_journal(path)
    assert [r["status"] for r in contents.iter_rows("task_runs")] == ["success"]
    assert contents.dropped_lines == 4
