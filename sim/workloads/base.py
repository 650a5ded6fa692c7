"""A workload: the suite's tasks and, per architecture, the trajectory each task's agent follows.

Both kinds of workload end as ``agbench.trajectory`` objects, so the simulated agents have one
code path: a synthetic workload is just trajectories drawn from fitted distributions. Which
tasks run, and in what order, is the core's one selection rule (``agbench.task.select_tasks``):
the same tasks in the same order as a live sweep of the same suite, seed and ``--limit``.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from agbench.task import select_tasks
from agbench.trajectory import Trajectory, TrajectorySet


@dataclass(frozen=True)
class SimTask:
    task: str
    category: str
    difficulty: str = ""
    sensitive_items: int = 2  # distinct sensitive items in the task's initial inputs
    time_limit_s: float | None = None  # the task's own limit (task.toml); None: the default

    @property
    def id(self) -> str:
        """The task id (what ``agbench.task.select_tasks`` selects and orders by)."""
        return self.task


@dataclass
class Workload:
    kind: str  # "synthetic" | "replay" (reports say "sim-synthetic" / "sim-replay")
    tasks: list[SimTask]
    trajectories: TrajectorySet
    limit: int | None = None  # run only the first N tasks of the seed's order (``--limit``)
    _index: dict[tuple[str, str], Trajectory] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._index = {(t.task, t.architecture): t for t in self.trajectories.trajectories}

    def trajectory(self, task: str, architecture: str) -> Trajectory | None:
        return self._index.get((task, architecture))

    @property
    def agent_kind(self) -> str:
        return f"sim-{self.kind}"

    def limited(self, limit: int | None) -> Workload:
        """This workload run with ``--limit``: the first N tasks of the seed's order, as live."""
        if limit is None:
            return self
        return Workload(self.kind, self.tasks, self.trajectories, limit)

    def run_order(self, seed: int, only: Collection[str] | None = None) -> list[SimTask]:
        """The tasks a simulation runs, in the order it starts them: the core's selection of
        the workload's tasks for ``seed`` and ``limit``; ``only`` keeps a subset in that order
        (validation: the tasks a live configuration actually ran)."""
        order = select_tasks(self.tasks, seed=seed, limit=self.limit)
        return order if only is None else [t for t in order if t.task in only]
