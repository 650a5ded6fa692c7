"""Which suites a task folder holds, their tasks, and the rows a broken suite gets instead of running.

Layout (docs/design.md, "Suites"): the root's own ``manifest.json`` declares the built-in suite
``agbench-60``, whose tasks are ``<root>/<category>/<id>/``; every other folder
``<root>/<suite>/`` with a ``manifest.json`` is a suite whose tasks are
``<root>/<suite>/<category>/<id>/`` (``agbench tasks import harbor --suite NAME`` writes
there). Folders starting with ``_`` are data.

A bad ``task.toml`` is that task's problem only: :func:`load_tasks_lenient` returns the good
tasks and one line per bad one, so ``agbench tasks list`` and ``tasks check`` of the other
tasks still work. For a run, :func:`plan_suites` gives each selected suite's tasks; the tasks
of a suite whose manifest fails validation, whose assets fail their checks, or that needs a
tool the run does not expose carry that strict status, and the runner records it as their
row without starting anything (:class:`SuiteBlocked`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agbench.errors import AgbenchError
from agbench.status import Status
from agbench.suites.assets import check_assets, suite_assets_dir
from agbench.suites.manifest import MANIFEST_FILE, ManifestCheck, validate_manifest
from agbench.task import ManifestError, Task, load_task

BUILTIN_SUITE_ID = "agbench-60"
FULL_ACTIVE = "full_active"
PROFILES = (FULL_ACTIVE,)
SUITE_STATUS_KEY = "suite_status"
SUITE_REASON_KEY = "suite_reason"
SUITE_ID_KEY = "suite"
ASSETS_KEY = "assets_dir"  # set on tasks of a suite with assets: its cache folder
HARNESS_MANIFEST_KEY = "harness_manifest"  # set on a harness suite's one row: its manifest path


class AttemptSettled(AgbenchError):
    """An attempt decided without a sandbox of agbench's own: its row gets ``status``,
    ``reward`` and this message (a blocked suite, or an external harness that ran)."""

    def __init__(self, status: Status, reason: str, reward: float = 0.0) -> None:
        self.status = status
        self.reward = reward
        super().__init__(reason)


class SuiteBlocked(AttemptSettled):
    """A task of a suite that may not run; its row gets ``status`` with this message."""


@dataclass(frozen=True)
class Suite:
    """One suite folder: its manifest check, the tasks that loaded and the ones that did not."""

    id: str
    folder: Path
    check: ManifestCheck | None  # None: no manifest.json (a bare task folder)
    tasks: tuple[Task, ...]
    task_errors: tuple[str, ...]

    @property
    def manifest_ok(self) -> bool:
        return self.check is not None and self.check.ok

    @property
    def active(self) -> bool:
        if self.check is None or self.check.manifest is None:
            return True  # a broken manifest is still shown by full_active runs
        return self.check.manifest.active


def load_tasks_lenient(root: Path, *, skip: Sequence[Path] = ()) -> tuple[list[Task], list[str]]:
    """Every loadable task under ``root/<category>/<id>/`` and one line per folder that is not."""
    skipped = {p.resolve() for p in skip}
    tasks: list[Task] = []
    errors: list[str] = []
    for toml in sorted(root.glob("*/*/task.toml")):
        group = toml.parent.parent
        if group.name.startswith("_") or group.resolve() in skipped:
            continue
        try:
            tasks.append(load_task(toml.parent))
        except ManifestError as exc:
            errors.append(str(exc))
    seen: dict[str, Path] = {}
    unique = []
    for task in tasks:
        if task.id in seen:
            errors.append(f"{task.path}: duplicate task id {task.id!r} (also {seen[task.id]})")
            continue
        seen[task.id] = task.path
        unique.append(task)
    return sorted(unique, key=lambda t: t.id), errors


def discover_suites(root: Path) -> list[Suite]:
    """The built-in suite at ``root`` and every ``root/<suite>/manifest.json``."""
    if not root.is_dir():
        raise AgbenchError(f"task suite folder not found: {root}")
    folders = sorted(p.parent for p in root.glob(f"*/{MANIFEST_FILE}") if not p.parent.name.startswith("_"))
    suites = []
    own_check = validate_manifest(root / MANIFEST_FILE) if (root / MANIFEST_FILE).is_file() else None
    tasks, errors = load_tasks_lenient(root, skip=folders)
    own_id = own_check.suite_id if own_check is not None else BUILTIN_SUITE_ID
    suites.append(Suite(own_id, root, own_check, tuple(tasks), tuple(errors)))
    for folder in folders:
        check = validate_manifest(folder / MANIFEST_FILE)
        tasks, errors = load_tasks_lenient(folder)
        suites.append(Suite(check.suite_id, folder, check, tuple(tasks), tuple(errors)))
    ids = [s.id for s in suites]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise AgbenchError(f"duplicate suite ids: {', '.join(dupes)}")
    return suites


def select_suites(
    suites: Sequence[Suite], ids: Sequence[str] = (), profile: str | None = None
) -> list[Suite]:
    """``--suite ID`` (by id or manifest name, repeatable) and ``--profile full_active``."""
    if profile is not None and profile not in PROFILES:
        raise AgbenchError(f"unknown profile {profile!r} (one of {', '.join(PROFILES)})")
    chosen: list[Suite] = [s for s in suites if s.active] if profile == FULL_ACTIVE else []
    for wanted in ids:
        match = [
            s
            for s in suites
            if wanted in (s.id, s.folder.name)
            or (s.check is not None and s.check.manifest is not None and s.check.manifest.name == wanted)
        ]
        if not match:
            known = ", ".join(s.id for s in suites)
            raise AgbenchError(f"unknown suite {wanted!r} (known: {known})")
        chosen += [s for s in match if s not in chosen]
    return chosen


def _placeholder(suite: Suite) -> Task:
    """A row-holder for a suite none of whose tasks could be read."""
    return Task(
        id=f"{suite.id}:suite",
        category="terminal",
        difficulty="medium",
        path=suite.folder,
        instruction="",
        metadata={SUITE_ID_KEY: suite.id},
    )


def _blocked(task: Task, status: Status, reason: str) -> Task:
    meta = {**task.metadata, SUITE_STATUS_KEY: status.value, SUITE_REASON_KEY: reason}
    return dataclasses.replace(task, metadata=meta)


def plan_suite(
    suite: Suite, exposed_tools: Sequence[str] | None = None, assets: Path | None = None
) -> list[Task]:
    """The suite's tasks for a run, each tagged with its suite and, where the suite may not run,
    the strict status its row gets: manifest first, then assets, then required tools."""
    tasks = [dataclasses.replace(t, metadata={**t.metadata, SUITE_ID_KEY: suite.id}) for t in suite.tasks]
    if not tasks:
        tasks = [_placeholder(suite)]
    if suite.check is None:
        return tasks
    if suite.check.manifest is None:
        reason = f"suite {suite.id}: manifest validation failed: " + "; ".join(suite.check.problems)
        return [_blocked(t, Status.FAILED_MANIFEST_VALIDATION, reason) for t in tasks]
    manifest = suite.check.manifest
    problems = check_assets(manifest, assets)
    if problems:
        reason = f"suite {suite.id}: assets failed their checks: " + "; ".join(str(p) for p in problems)
        return [_blocked(t, Status.FAILED_MISSING_ASSETS, reason) for t in tasks]
    if exposed_tools is not None and manifest.adapter != "harness":
        missing = [t for t in manifest.required_tools if t not in exposed_tools]
        if missing:
            reason = f"suite {suite.id}: required tool(s) not exposed by this run: {', '.join(missing)}"
            return [_blocked(t, Status.FAILED_MISSING_REQUIRED_TOOL, reason) for t in tasks]
    if manifest.assets:  # each sandbox gets its suite's assets, read-only (live/sandbox/assets_mount)
        folder = str(suite_assets_dir(manifest.id, assets))
        tasks = [dataclasses.replace(t, metadata={**t.metadata, ASSETS_KEY: folder}) for t in tasks]
    if manifest.adapter == "harness":  # one row: the harness runs its own items (live/launcher)
        holder = _placeholder(suite)
        meta = {**holder.metadata, HARNESS_MANIFEST_KEY: str(suite.check.path)}
        return [dataclasses.replace(holder, metadata=meta)]
    return tasks


def plan_suites(
    root: Path,
    ids: Sequence[str] = (),
    profile: str | None = None,
    exposed_tools: Sequence[str] | None = None,
) -> list[Task]:
    """Every task of the selected suites (ids unique across them), blocked ones included."""
    chosen = select_suites(discover_suites(root), ids, profile)
    tasks: list[Task] = []
    seen: set[str] = set()
    for suite in chosen:
        for task in plan_suite(suite, exposed_tools):
            if task.id in seen:
                raise AgbenchError(f"task id {task.id!r} appears in more than one selected suite")
            seen.add(task.id)
            tasks.append(task)
    return tasks


def raise_if_blocked(task: Task) -> None:
    """Raise :class:`SuiteBlocked` for a task whose suite may not run (see :func:`plan_suite`)."""
    status = task.metadata.get(SUITE_STATUS_KEY)
    if status:
        raise SuiteBlocked(Status(str(status)), str(task.metadata.get(SUITE_REASON_KEY, "")))


__all__ = [
    "BUILTIN_SUITE_ID",
    "FULL_ACTIVE",
    "HARNESS_MANIFEST_KEY",
    "PROFILES",
    "AttemptSettled",
    "Suite",
    "SuiteBlocked",
    "discover_suites",
    "load_tasks_lenient",
    "plan_suite",
    "plan_suites",
    "raise_if_blocked",
    "select_suites",
]
