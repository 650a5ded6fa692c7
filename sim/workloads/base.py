"""A workload: the suite's tasks and, per architecture, the trajectory each task's agent follows.

Both kinds of workload end as ``agbench.trajectory`` objects, so the simulated agents have one
code path: a synthetic workload is just trajectories drawn from fitted distributions.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agbench.trajectory import Trajectory, TrajectorySet


@dataclass(frozen=True)
class SimTask:
    task: str
    category: str
    difficulty: str = ""
    sensitive_items: int = 2  # distinct sensitive items in the task's initial inputs


@dataclass
class Workload:
    kind: str  # "synthetic" | "replay" (reports say "sim-synthetic" / "sim-replay")
    tasks: list[SimTask]
    trajectories: TrajectorySet
    _index: dict[tuple[str, str], Trajectory] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._index = {(t.task, t.architecture): t for t in self.trajectories.trajectories}

    def trajectory(self, task: str, architecture: str) -> Trajectory | None:
        return self._index.get((task, architecture))

    @property
    def agent_kind(self) -> str:
        return f"sim-{self.kind}"

    def limited(self, limit: int | None) -> Workload:
        if limit is None:
            return self
        return Workload(self.kind, self.tasks[:limit], self.trajectories)
