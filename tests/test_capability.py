"""``full_capability`` from what a run provided, and the model score it feeds."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd

from agbench.attempt import AttemptCounters, AttemptKey
from agbench.capability import missing_capabilities
from agbench.metrics.outcomes import scores
from agbench.task import load_suite, load_task, suite_root

ALL_TOOLS = ("read_file", "write_file", "edit_file", "list_dir", "search_files", "run_command", "python",
             "web_search", "web_fetch")  # fmt: skip


def test_builtin_tasks_get_full_capability_from_a_complete_run() -> None:
    for task in load_suite():
        assert missing_capabilities(task, tools=ALL_TOOLS, corpus_available=True) == [], task.id


def test_retrieval_without_its_corpus_is_partial() -> None:
    task = load_task(next(suite_root().glob("retrieval/rt-plant-watering")))
    assert missing_capabilities(task, tools=ALL_TOOLS, corpus_available=False) == ["retrieval corpus"]


def test_named_tool_not_given_and_unbuilt_environment_image(tmp_path: Path) -> None:
    src = suite_root() / "terminal" / "term-error-summary"
    dest = tmp_path / "terminal" / "term-error-summary"
    shutil.copytree(src, dest)
    toml = dest / "task.toml"
    toml.write_text('tools = ["read_file", "python"]\n' + toml.read_text())  # before any [table]
    (dest / "environment" / "Dockerfile").write_text("FROM debian:bookworm-slim\n")
    task = load_task(dest)
    assert missing_capabilities(task, tools=("read_file",), corpus_available=True) == [
        "tool python",
        "environment image (environment/Dockerfile)",
    ]
    assert (
        missing_capabilities(task, tools=ALL_TOOLS, corpus_available=True, builds_environment_image=True)
        == []
    )


def test_model_score_leaves_out_partial_rows_that_valid_score_keeps() -> None:
    counters = AttemptCounters()
    rows = []
    for i, (status, full) in enumerate([("success", True), ("success", False), ("verification_failed", True),
                                        ("failed_grader", True)]):  # fmt: skip
        key = AttemptKey.parse("r", f"box|LO|1|t{i}|1")
        run = counters.task_run(key, agent_kind="model", category="c", difficulty="easy", t_start=0.0,
                                t_end=1.0, status=status, full_capability=full)  # fmt: skip
        rows.append(run.__dict__)
    frame = pd.DataFrame(rows)
    got = scores(frame)
    assert got["raw_score_all_tasks"] == 0.5
    assert got["score_valid_tasks_only"] == 2 / 3  # failed_grader is not the model's failure
    assert got["model_score_valid_tasks_only"] == 0.5  # and t1 lacked a capability
