"""agbench's own agent loop as one implementation of the adapter contract (``contract.py``).

The workspace is a fresh sandbox of the chosen backend (the task's own image when it has a
Dockerfile), the tools are the common tool set narrowed by the task, the loop is any coroutine
that drives the sandbox (the runner's agents; :func:`oracle_loop` in checks), the outputs are the
answer and /work, and grading is the task's verifier in a fresh grading sandbox
(``verification.verify``).
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

from agbench.live.sandbox import Sandbox, create_sandbox
from agbench.live.tools import default_tools
from agbench.live.verification import run_oracle, verify
from agbench.status import Status
from agbench.task import Task

from .contract import AgentRun, GradeResult, OutputBundle, TaskWorkspace, ToolSchema

AgentLoop = Callable[[Task, Sandbox, list[ToolSchema]], Awaitable[AgentRun]]


async def oracle_loop(task: Task, sandbox: Sandbox, tools: list[ToolSchema]) -> AgentRun:
    """The task's own solution as the agent: what ``agbench tasks check`` runs first."""
    answer = await run_oracle(sandbox, task)
    return AgentRun(answer=answer, status=Status.SUCCESS.value, reason="oracle")


class BuiltinAdapter:
    """prepare_task → a sandbox; run_agent_loop → ``loop``; grade → the task's verifier."""

    def __init__(self, backend: str, work_root: Path, loop: AgentLoop = oracle_loop) -> None:
        self.backend = backend
        self.work_root = work_root
        self.loop = loop

    async def prepare_task(self, task: Task) -> TaskWorkspace:
        host_dir = self.work_root / f"{uuid.uuid4().hex[:8]}-{task.id}"
        sandbox = create_sandbox(self.backend, task, host_dir)
        await sandbox.start()
        return TaskWorkspace(task, host_dir, sandbox)

    def available_tools(self, task: Task) -> list[ToolSchema]:
        return [ToolSchema(t.name, t.description, dict(t.parameters)) for t in default_tools(task)]

    async def run_agent_loop(self, task: Task, workspace: TaskWorkspace, tools: list[ToolSchema]) -> AgentRun:
        sandbox: Sandbox = workspace.handle
        return await self.loop(task, sandbox, tools)

    async def collect_outputs(self, run: AgentRun, workspace: TaskWorkspace) -> OutputBundle:
        sandbox: Sandbox = workspace.handle
        files = {
            p.relative_to(sandbox.work_dir_host).as_posix(): p.read_bytes()
            for p in sorted(sandbox.work_dir_host.rglob("*"))
            if p.is_file() and not p.is_symlink()
        }
        return OutputBundle(run.answer, files)

    async def grade(self, task: Task, outputs: OutputBundle, workspace: TaskWorkspace) -> GradeResult:
        sandbox: Sandbox = workspace.handle
        try:
            verdict = await verify(sandbox, task, outputs.answer)
        finally:
            await sandbox.destroy()
        return GradeResult(str(verdict.status), verdict.reward, verdict.reason, "program")


__all__ = ["AgentLoop", "BuiltinAdapter", "oracle_loop"]
