"""What a simulated task agent runs in: the configuration's shared world, and where one
attempt stands.

Kept apart from ``task_agent`` (which decides what happens and when) because the engine
builds the world and the record reads the state, neither needing the agent's logic.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import simpy

from agbench.attempt import AgentLabel, RunScope
from agbench.config import Architecture
from agbench.hcl_sub_agent import SubAgentMemory, sub_agent_memory
from agbench.sim.agents.attempt_record import AttemptRecord, SimRole, agent_label
from agbench.sim.agents.timing_jitter import TimingJitter
from agbench.sim.entities.cloud import CloudAPI
from agbench.sim.entities.cpu import ProcessorSharingCPU
from agbench.sim.entities.local_server import LocalServer
from agbench.sim.profiles import Profile
from agbench.sim.workloads.base import SimTask


@dataclass
class SimWorld:
    """What the agents of one configuration share."""

    env: simpy.Environment
    profile: Profile
    server: LocalServer | None
    cpu: ProcessorSharingCPU
    cloud: CloudAPI
    scope: RunScope  # the run and configuration: every row's identity starts here
    seed: int
    agent_kind: str  # task_runs.agent_kind: "sim-replay" / "sim-synthetic"
    records: list[Any] = field(default_factory=list)
    cloud_server: LocalServer | None = None  # the cloud stand-in (CloudProfile.standin_local)
    jitter: int | None = None  # the timing-jitter stream (timing_jitter.py); None: nominal times
    architecture: Architecture = field(init=False)  # what comparisons use
    arch: str = field(init=False)  # its name (LO, CO, HCL, HLL): keys, seeds and labels in rows
    labels: dict[SimRole, AgentLabel] = field(init=False)  # each role's trace label
    # HCL's sub-agent keeps one history across delegations (agbench.hcl_sub_agent)
    persistent_sub: bool = field(init=False)

    def __post_init__(self) -> None:
        self.architecture = Architecture(self.scope.config.architecture)
        self.arch = self.architecture.value
        self.labels = {role: agent_label(self.architecture, role) for role in SimRole}
        memory = sub_agent_memory(self.profile.behaviour.hcl_sub_agent)
        self.persistent_sub = memory is SubAgentMemory.PERSISTENT


@dataclass(eq=False)
class TaskState:
    """Where one attempt stands: its deadline, the wait it is in, and its record."""

    task: SimTask
    record: AttemptRecord
    t_start: float
    deadline: float
    rng: random.Random
    jitter: TimingJitter  # this attempt's draws of its harness and tool times (nominal: none)
    current: tuple[str, Any, simpy.Event] | None = None  # ("slot" | "standin" | "cpu", what, event)
    expired: bool = False
    finished: bool = False
    exposure_drawn: bool = False
    delegation_abandoned: bool = False
    failed_turn: int | None = None
    # A persistent sub-agent's history in tokens (0: it has not run yet); kept across
    # delegations and, after a context error, the history of the request that failed.
    sub_history: int = 0

    @property
    def calls(self) -> int:
        return int(self.record.calls)


__all__ = ["SimWorld", "TaskState"]
