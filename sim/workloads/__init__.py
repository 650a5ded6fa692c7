"""Workloads: which tasks run and what their agents do (replayed traces or synthetic ones)."""

from agbench.sim.workloads.base import SimTask, Workload
from agbench.sim.workloads.replay import replay_workload
from agbench.sim.workloads.synthetic import ArchParams, CategoryParams, SyntheticParams, synthetic_workload

__all__ = [
    "ArchParams",
    "CategoryParams",
    "SimTask",
    "SyntheticParams",
    "Workload",
    "replay_workload",
    "synthetic_workload",
]
