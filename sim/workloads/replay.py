"""Replay workload: a recorded or synthesised ``TrajectorySet`` file, replayed closed-loop.

Closed-loop: each step starts when the previous one ends plus its recorded gap (``think_s``),
never at recorded timestamps, so contention the recording did not have delays what follows.
Tasks come from the file in first-seen order; their category from the trajectories, their time
limit from the task suite (the deadline rule of ``agbench.task.task_deadline_s``, as live).
"""

from __future__ import annotations

from pathlib import Path

from agbench.errors import AgbenchError
from agbench.sim.workloads.base import SimTask, Workload
from agbench.task import load_suite
from agbench.trajectory import TrajectorySet


def suite_time_limits() -> dict[str, float]:
    """Each shipped task's own time limit; empty where the suite is not at hand."""
    try:
        return {t.id: t.time_limit_s for t in load_suite()}
    except AgbenchError:
        return {}


def replay_workload(
    source: Path | TrajectorySet, sensitive_items: int = 2, time_limits: dict[str, float] | None = None
) -> Workload:
    trajectories = source if isinstance(source, TrajectorySet) else TrajectorySet.load(source)
    if not trajectories.trajectories:
        raise AgbenchError(f"{source}: the trajectory set is empty")
    limits = suite_time_limits() if time_limits is None else time_limits
    seen: dict[str, SimTask] = {}
    for t in trajectories.trajectories:
        if t.task not in seen:
            seen[t.task] = SimTask(t.task, t.category or "unknown", "", sensitive_items, limits.get(t.task))
    return Workload("replay", list(seen.values()), trajectories)


__all__ = ["replay_workload", "suite_time_limits"]
