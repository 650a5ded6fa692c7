"""What a report knows about the tasks of a run beyond its traces: each task's name, one-line
description and grading method, and the credits, citations and licences of its suite.

Read from the task manifests and the suite's ``credits.toml`` when the report is written, so a
page lists the sources of every suite in the run. A task no manifest describes any more (a
run whose suite was since changed) is still reported under its id, with an unknown method.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agbench.errors import AgbenchError
from agbench.suites.report_info import suites_of_tasks
from agbench.task import Task, load_suite, suite_root

CREDITS_FILE = "credits.toml"
BUILTIN_SUITE = "agbench-60"
# A task's grading method when its manifest declares none: its verify.py program decides.
DEFAULT_METHOD = "program"
GRADING_METHODS = ("exact", "numeric", "program", "rubric", "task_compliance")
_DESCRIPTION_CHARS = 110


@dataclass(frozen=True)
class TaskInfo:
    """One task as the report names it."""

    id: str
    category: str
    description: str
    grading_method: str
    suite: str


@dataclass
class SuiteInfo:
    """Every task of the suites a run drew from, and those suites' credits."""

    tasks: dict[str, TaskInfo] = field(default_factory=dict)
    suites: list[dict[str, Any]] = field(default_factory=list)


def grading_method(task: Task) -> str:
    """``rubric`` when the manifest gives a published rubric, else its declared ``grading``
    method, else ``program`` (the task's own verifier)."""
    if task.metadata.get("rubric"):
        return "rubric"
    method = str(task.metadata.get("grading", DEFAULT_METHOD))
    return method if method in GRADING_METHODS else DEFAULT_METHOD


def describe(task: Task) -> str:
    """The instruction's first sentence, shortened: what the task asks, in a table cell."""
    text = " ".join(task.instruction.split())
    first = text.split(". ")[0]
    return first if len(first) <= _DESCRIPTION_CHARS else first[: _DESCRIPTION_CHARS - 1] + "…"


def read_credits(root: Path) -> list[dict[str, Any]]:
    """The ``[[suite]]`` entries of ``root/credits.toml`` (none when the file is absent)."""
    path = root / CREDITS_FILE
    if not path.is_file():
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise AgbenchError(f"{path}: {exc}") from None
    suites = data.get("suite", [])
    return [dict(s) for s in suites if isinstance(s, dict)]


def suite_info(meta: dict[str, Any], task_ids: list[str]) -> SuiteInfo:
    """The tasks and suite credits of one run, from the suite folder the run used."""
    options = meta.get("options") if isinstance(meta.get("options"), dict) else {}
    root = Path(str(options.get("tasks_root"))) if options and options.get("tasks_root") else suite_root()
    info = SuiteInfo()
    try:
        tasks = load_suite(root) if root.is_dir() else []
    except AgbenchError:
        tasks = []
    credits = read_credits(root) if root.is_dir() else []
    suite_id = str(credits[0].get("id", BUILTIN_SUITE)) if credits else root.name
    wanted = set(task_ids)
    for task in tasks:
        if task.id in wanted:
            info.tasks[task.id] = TaskInfo(
                task.id, task.category, describe(task), grading_method(task), suite_id
            )
    # Suites with manifests (agbench.suites): their tasks, credits and strict status.

    by_suite, manifest_entries = suites_of_tasks(root, wanted)
    for task_id, (sid, task) in by_suite.items():
        if task_id not in info.tasks:
            info.tasks[task_id] = TaskInfo(task.id, task.category, describe(task), grading_method(task), sid)
    for task_id in sorted(wanted - set(info.tasks)):
        sid = task_id[: -len(":suite")] if task_id.endswith(":suite") else "unknown"
        info.tasks[task_id] = TaskInfo(task_id, "", "", "unknown", sid)
    used = {t.suite for t in info.tasks.values()}
    info.suites = [s for s in credits if str(s.get("id")) in used]
    for entry in manifest_entries:
        known = next((s for s in info.suites if str(s.get("id")) == entry["id"]), None)
        if known is not None:
            known.update({k: v for k, v in entry.items() if k in ("strict_status", "problems")})
        elif entry["id"] in used:
            info.suites.append(entry)
    for suite in sorted(used - {str(s.get("id")) for s in info.suites}):
        info.suites.append({"id": suite, "name": suite, "summary": "no credits recorded for this suite"})
    return info


__all__ = [
    "BUILTIN_SUITE",
    "CREDITS_FILE",
    "DEFAULT_METHOD",
    "GRADING_METHODS",
    "SuiteInfo",
    "TaskInfo",
    "describe",
    "grading_method",
    "read_credits",
    "suite_info",
]
