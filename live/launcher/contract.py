"""The adapter contract between a benchmark and an agent loop, as a typed protocol.

Every way agbench runs a benchmark item goes through the same five steps, whoever drives the
model: prepare the task's workspace, say which tools the agent gets, run the agent loop, collect
what it produced, grade it. The built-in loop (:class:`BuiltinAdapter`: a sandbox, the common
tools, agbench's own agents and verifier) is one implementation; an external harness that runs
its own loop inside its container (``container.py``) is another, reporting the same fields in
its result file. A capability is reported only when an adapter provides the workspace, tools,
output collection and grader it needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from agbench.task import Task


@dataclass(frozen=True)
class ToolSchema:
    """A tool as the model sees it (an OpenAI function schema)."""

    name: str
    description: str
    parameters: dict[str, Any] = field(default_factory=dict)


@dataclass
class TaskWorkspace:
    """Where one item runs: a host folder (and, for the built-in loop, its sandbox)."""

    task: Task
    host_dir: Path
    handle: Any = None  # the backend's own object (a Sandbox for the built-in loop)


@dataclass
class AgentRun:
    """What the agent loop did: its final answer, its status and why."""

    answer: str
    status: str
    reason: str = ""
    model_calls: int = 0


@dataclass
class OutputBundle:
    """What the run left for grading: the answer and the files it wrote."""

    answer: str
    files: dict[str, bytes] = field(default_factory=dict)


@dataclass(frozen=True)
class GradeResult:
    """The grader's verdict (reward in [0, 1]), the method that produced it, and why."""

    status: str
    reward: float
    reason: str
    method: str


@runtime_checkable
class BenchmarkAdapter(Protocol):
    """prepare_task → available_tools → run_agent_loop → collect_outputs → grade."""

    async def prepare_task(self, task: Task) -> TaskWorkspace: ...

    def available_tools(self, task: Task) -> list[ToolSchema]: ...

    async def run_agent_loop(
        self, task: Task, workspace: TaskWorkspace, tools: list[ToolSchema]
    ) -> AgentRun: ...

    async def collect_outputs(self, run: AgentRun, workspace: TaskWorkspace) -> OutputBundle: ...

    async def grade(self, task: Task, outputs: OutputBundle, workspace: TaskWorkspace) -> GradeResult: ...


def missing_capabilities(adapter: object) -> list[str]:
    """The contract's steps an adapter does not provide (empty: fully capable)."""
    steps = ("prepare_task", "available_tools", "run_agent_loop", "collect_outputs", "grade")
    return [s for s in steps if not callable(getattr(adapter, s, None))]


__all__ = [
    "AgentRun",
    "BenchmarkAdapter",
    "GradeResult",
    "OutputBundle",
    "TaskWorkspace",
    "ToolSchema",
    "missing_capabilities",
]
