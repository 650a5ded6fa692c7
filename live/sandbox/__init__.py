"""Isolated environments for task attempts: one interface, a Docker and a bubblewrap backend.

``create_sandbox(backend, task, attempt_dir)`` returns a not-yet-started sandbox; ``await
sandbox.start()`` builds it (raising :class:`MissingRequiredProgram` → status
failed_missing_required_tool, or :class:`SandboxError` → failed_sandbox).
"""

from __future__ import annotations

from pathlib import Path

from agbench.config import SANDBOX_BACKENDS
from agbench.errors import AgbenchError
from agbench.task import Task

from .base import ExecResult, MissingRequiredProgram, Sandbox, SandboxError
from .bwrap import BwrapSandbox
from .docker import DockerSandbox

BACKENDS = SANDBOX_BACKENDS

__all__ = [
    "BACKENDS",
    "ExecResult",
    "MissingRequiredProgram",
    "Sandbox",
    "SandboxError",
    "create_sandbox",
]


def create_sandbox(backend: str, task: Task, attempt_dir: Path) -> Sandbox:
    """A sandbox for one attempt of ``task``; its host side lives in ``attempt_dir``."""
    if backend == "bwrap":
        return BwrapSandbox(task, attempt_dir)
    if backend == "docker":
        return DockerSandbox(task, attempt_dir)
    raise AgbenchError(f"unknown sandbox backend {backend!r} (choose from {', '.join(BACKENDS)})")
