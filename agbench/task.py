"""The task model: one folder per task under ``tasks/<category>/<id>/``.

A task folder holds ``task.toml`` (the manifest parsed here), ``instruction.md`` (what the
agent reads), ``environment/`` (copied into the sandbox's /work), ``verifier/verify.py``
(hidden until the agent is done) and ``solution/solve.py`` (the oracle).

The verifier contract: run as ``python3 /verifier/verify.py`` inside the sandbox with cwd
/work after the agent finishes; the agent's final answer is in ``/verifier/answer.txt``; its
last stdout line is JSON ``{"reward": float, "reason": str}``. The oracle contract: run as
``python3 /solution/solve.py`` with cwd /work; it changes /work as the task asks and prints
the final answer on stdout.
"""

from __future__ import annotations

import hashlib
import os
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from agbench.errors import AgbenchError
from agbench.resources import tasks_dir

CATEGORIES = (
    "local_files",
    "retrieval",
    "calculation",
    "office",
    "multimedia",
    "scientific",
    "system",
    "terminal",
)
DIFFICULTIES = ("easy", "medium", "hard")
RESOURCES = ("cpu", "memory", "storage", "network")
SENSITIVE_KINDS = ("personal_identifier", "credential", "personal_record", "business_confidential")
DEFAULT_TIME_LIMIT_S = 7200.0


def task_deadline_s(own_limit_s: float | None, override_s: float | None = None) -> float:
    """The one deadline rule, live and simulated alike: a run's override (``--time-limit``, a
    scenario's ``deadline_s``) if given, else the task's own ``time_limit_s``, else 7,200 s
    (the paper's limit, shared by every agent of the task)."""
    if override_s is not None:
        return float(override_s)
    return float(own_limit_s) if own_limit_s is not None else DEFAULT_TIME_LIMIT_S


class ManifestError(AgbenchError):
    """A task.toml that does not describe a valid task (status failed_manifest_validation)."""


@dataclass(frozen=True)
class SensitiveItem:
    """A distinct sensitive string present in the task's initial inputs."""

    item: str
    kind: str


@dataclass(frozen=True)
class Limits:
    memory_mb: int = 512
    pids: int = 256
    cpus: float = 1.0


@dataclass(frozen=True)
class Task:
    id: str
    category: str
    difficulty: str
    path: Path
    instruction: str
    time_limit_s: float = DEFAULT_TIME_LIMIT_S
    resources: tuple[str, ...] = ()
    network: bool = False
    required_programs: tuple[str, ...] = ("python3",)
    sensitive_items: tuple[SensitiveItem, ...] = ()
    limits: Limits = field(default_factory=Limits)
    tools: tuple[str, ...] | None = None  # None: the common tool set
    metadata: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @property
    def environment_dir(self) -> Path:
        return self.path / "environment"

    @property
    def verifier_dir(self) -> Path:
        return self.path / "verifier"

    @property
    def solution_dir(self) -> Path:
        return self.path / "solution"

    @property
    def dockerfile(self) -> Path | None:
        p = self.environment_dir / "Dockerfile"
        return p if p.is_file() else None


def suite_root() -> Path:
    """The task suite folder: ``$AGBENCH_TASKS`` or the suite that ships with agbench."""
    env = os.environ.get("AGBENCH_TASKS")
    if env:
        return Path(env)
    return tasks_dir()


def _require(data: dict[str, Any], key: str, where: Path) -> Any:
    if key not in data:
        raise ManifestError(f"{where}: missing required key {key!r}")
    return data[key]


def load_task(path: Path) -> Task:
    """Parse one task folder; raises ManifestError with the file and the problem."""
    manifest = path / "task.toml"
    if not manifest.is_file():
        raise ManifestError(f"{path}: no task.toml")
    try:
        data = tomllib.loads(manifest.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(f"{manifest}: {exc}") from None
    task_id = str(_require(data, "id", manifest))
    category = str(_require(data, "category", manifest))
    if category not in CATEGORIES:
        raise ManifestError(f"{manifest}: unknown category {category!r}")
    difficulty = str(_require(data, "difficulty", manifest))
    if difficulty not in DIFFICULTIES:
        raise ManifestError(f"{manifest}: unknown difficulty {difficulty!r}")
    resources = tuple(data.get("resources", ()))
    bad = [r for r in resources if r not in RESOURCES]
    if bad:
        raise ManifestError(f"{manifest}: unknown resources {bad}")
    items: list[SensitiveItem] = []
    for entry in data.get("sensitive", []):
        item = str(_require(entry, "item", manifest))
        kind = str(entry.get("kind", "personal_identifier"))
        if kind not in SENSITIVE_KINDS:
            raise ManifestError(f"{manifest}: unknown sensitive kind {kind!r}")
        items.append(SensitiveItem(item, kind))
    instruction_file = path / "instruction.md"
    if not instruction_file.is_file():
        raise ManifestError(f"{path}: no instruction.md")
    lim = data.get("limits", {})
    tools = data.get("tools")
    known = {
        "id",
        "category",
        "difficulty",
        "time_limit_s",
        "resources",
        "network",
        "required_programs",
        "sensitive",
        "limits",
        "tools",
    }
    return Task(
        id=task_id,
        category=category,
        difficulty=difficulty,
        path=path,
        instruction=instruction_file.read_text(),
        time_limit_s=float(data.get("time_limit_s", DEFAULT_TIME_LIMIT_S)),
        resources=resources,
        network=bool(data.get("network", False)),
        required_programs=tuple(data.get("required_programs", ("python3",))),
        sensitive_items=tuple(items),
        limits=Limits(
            memory_mb=int(lim.get("memory_mb", 512)),
            pids=int(lim.get("pids", 256)),
            cpus=float(lim.get("cpus", 1.0)),
        ),
        tools=tuple(tools) if tools is not None else None,
        metadata={k: v for k, v in data.items() if k not in known},
    )


def load_suite(root: Path | None = None, category: str | None = None) -> list[Task]:
    """Every task under ``root`` (sorted by id); folders starting with ``_`` are data, not tasks."""
    root = root or suite_root()
    if not root.is_dir():
        raise AgbenchError(f"task suite folder not found: {root}")
    tasks = [
        load_task(p.parent)
        for p in sorted(root.glob("*/*/task.toml"))
        if not p.parent.parent.name.startswith("_")
    ]
    ids = [t.id for t in tasks]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise AgbenchError(f"duplicate task ids: {dupes}")
    if category is not None:
        tasks = [t for t in tasks if t.category == category]
    return sorted(tasks, key=lambda t: t.id)


class Selectable(Protocol):
    """What task selection needs of a task: its id and category (a live ``Task``, a simulated
    task, a trajectory's task)."""

    @property
    def id(self) -> str: ...

    @property
    def category(self) -> str: ...


S = TypeVar("S", bound=Selectable)


def select_tasks(
    tasks: Sequence[S],
    *,
    seed: int | None,
    ids: Sequence[str] | None = None,
    categories: Sequence[str] | None = None,
    limit: int | None = None,
) -> list[S]:
    """The tasks a run executes, in the order it executes them: the one selection rule.

    The live runner (``agbench sweep``), trajectory synthesis (``agbench trajectories synth``)
    and the simulator all pick their tasks here, so a limited sweep, its trajectories and its
    simulation hold the same tasks in the same order. The rule: keep the tasks named in
    ``ids`` (an unknown id is an error) and in ``categories``, sort what is left by id, put it
    in the seed's order (:func:`seeded_order`; ``seed=None`` keeps the id order, for commands
    such as ``agbench tasks check`` where order carries no meaning), then take ``limit``'s
    first N. The order of ``ids`` itself never matters.
    """
    chosen = list(tasks)
    if ids:
        by_id = {t.id: t for t in chosen}
        missing = [i for i in ids if i not in by_id]
        if missing:
            raise AgbenchError(f"unknown task id(s): {', '.join(missing)}")
        wanted = set(ids)
        chosen = [t for t in chosen if t.id in wanted]
    if categories:
        unknown = [c for c in categories if c not in CATEGORIES]
        if unknown:
            raise AgbenchError(f"unknown categor(y/ies): {', '.join(unknown)}")
        keep = set(categories)
        chosen = [t for t in chosen if t.category in keep]
    chosen.sort(key=lambda t: t.id)
    if seed is not None:
        chosen = seeded_order(chosen, seed)
    if limit is not None:
        if limit < 1:
            raise AgbenchError("--limit must be at least 1")
        chosen = chosen[:limit]
    return chosen


def seeded_order(items: Sequence[S], seed: int) -> list[S]:
    """The suite order for a seed: identical in every configuration, live or simulated.

    The paper runs tasks in one fixed random order across configurations; :func:`select_tasks`
    applies it for the live runner, the simulator and trajectory synthesis alike. Each task
    draws its place from the seed and its own id alone (a hash), so any subset of the tasks
    comes in the order the whole suite gives it: a trajectory file of the suite's first 16
    tasks, simulated with ``--limit 4``, runs the four a live ``--limit 4`` runs, in the same
    order. (A shuffle of the list would order each subset its own way.)
    """
    return sorted(items, key=lambda item: (_place(seed, item.id), item.id))


def _place(seed: int, task_id: str) -> bytes:
    return hashlib.sha256(f"{seed}|{task_id}".encode()).digest()
