"""``agbench tasks check``: every task must be solvable and must not be solved by doing nothing.

For each task, in fresh sandboxes on the chosen backend: the oracle (solution/solve.py) runs
and the verifier must give success; then a null agent (no changes, empty answer) is graded and
the verifier must give ``verification_failed``. A verifier that crashes on either is a miss
too: it would turn agent attempts into ``failed_grader`` rows.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from agbench.errors import AgbenchError
from agbench.live.sandbox import MissingRequiredProgram, SandboxError, create_sandbox
from agbench.live.verification import OracleError, run_oracle, verify
from agbench.status import Status
from agbench.task import Task


@dataclass(frozen=True)
class TaskCheck:
    task_id: str
    oracle_ok: bool
    null_ok: bool  # True when the null agent FAILS, as it must
    detail: str
    wall_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.oracle_ok and self.null_ok


async def _oracle_attempt(task: Task, backend: str, attempt_dir: Path) -> tuple[bool, str]:
    sandbox = create_sandbox(backend, task, attempt_dir)
    try:
        await sandbox.start()
        answer = await run_oracle(sandbox, task)
        verdict = await verify(sandbox, task, answer)
    except (OracleError, MissingRequiredProgram) as exc:
        return False, str(exc)
    except SandboxError as exc:
        return False, f"sandbox: {exc}"
    finally:
        await sandbox.destroy()
    if verdict.success:
        return True, "oracle passes"
    return False, f"oracle graded {verdict.status} ({verdict.reward:g}): {verdict.reason}"


async def _null_attempt(task: Task, backend: str, attempt_dir: Path) -> tuple[bool, str]:
    sandbox = create_sandbox(backend, task, attempt_dir)
    try:
        await sandbox.start()
        verdict = await verify(sandbox, task, "")
    except SandboxError as exc:
        return False, f"sandbox: {exc}"
    finally:
        await sandbox.destroy()
    if verdict.status == Status.VERIFICATION_FAILED:
        return True, "null agent fails"
    if verdict.success:
        return False, "null agent passes (the verifier accepts an untouched environment)"
    return False, f"null agent graded {verdict.status}: {verdict.reason}"


async def check_task(task: Task, backend: str, work_root: Path) -> TaskCheck:
    t0 = time.monotonic()
    oracle_ok, oracle_detail = await _oracle_attempt(task, backend, work_root / f"{task.id}-oracle")
    null_ok, null_detail = await _null_attempt(task, backend, work_root / f"{task.id}-null")
    return TaskCheck(task.id, oracle_ok, null_ok, f"{oracle_detail}; {null_detail}", time.monotonic() - t0)


async def check_tasks_async(tasks: list[Task], backend: str, *, progress: bool = True) -> list[TaskCheck]:
    results: list[TaskCheck] = []
    with tempfile.TemporaryDirectory(prefix="agbench-check-") as tmp:
        for n, task in enumerate(tasks, 1):
            check = await check_task(task, backend, Path(tmp))
            results.append(check)
            if progress:
                mark = "ok  " if check.ok else "MISS"
                print(
                    f"[{n}/{len(tasks)}] {mark} {task.id} ({check.wall_s:.1f} s): {check.detail}",
                    file=sys.stderr,
                    flush=True,
                )
    return results


def check_tasks(tasks: list[Task], backend: str, *, progress: bool = True) -> list[TaskCheck]:
    """Oracle must pass and the null agent must fail, for every task, on ``backend``."""
    if backend not in ("docker", "bwrap"):
        raise AgbenchError(f"unknown sandbox backend {backend!r} (choose from docker, bwrap)")
    if not tasks:
        raise AgbenchError("no tasks to check")
    try:
        return asyncio.run(check_tasks_async(tasks, backend, progress=progress))
    finally:
        if backend == "docker":
            from agbench.live.sandbox.docker import stop_shared_daemon

            stop_shared_daemon()


def summary_line(checks: list[TaskCheck]) -> str:
    misses = [c.task_id for c in checks if not c.ok]
    if not misses:
        return f"all {len(checks)} tasks pass: oracle succeeds, null agent fails"
    return f"{len(misses)} of {len(checks)} tasks miss: {', '.join(misses)}"


def exit_code(checks: list[TaskCheck]) -> int:
    return 0 if checks and all(c.ok for c in checks) else 1
