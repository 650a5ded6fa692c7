"""Replay workload: a recorded or synthesised ``TrajectorySet`` file, replayed closed-loop.

Closed-loop: each step starts when the previous one ends plus its recorded gap (``think_s``),
never at recorded timestamps, so contention the recording did not have delays what follows.
Tasks come from the file in first-seen order; their category from the trajectories.
"""

from __future__ import annotations

from pathlib import Path

from agbench.errors import AgbenchError
from agbench.sim.workloads.base import SimTask, Workload
from agbench.trajectory import TrajectorySet


def replay_workload(source: Path | TrajectorySet, sensitive_items: int = 2) -> Workload:
    trajectories = source if isinstance(source, TrajectorySet) else TrajectorySet.load(source)
    if not trajectories.trajectories:
        raise AgbenchError(f"{source}: the trajectory set is empty")
    seen: dict[str, SimTask] = {}
    for t in trajectories.trajectories:
        if t.task not in seen:
            seen[t.task] = SimTask(t.task, t.category or "unknown", "", sensitive_items)
    return Workload("replay", list(seen.values()), trajectories)


__all__ = ["replay_workload"]
