"""``agbench tasks check``: every task solvable, not solved by doing nothing, not fooled.

For each task, in fresh sandboxes on the chosen backend and graded exactly as an attempt is
(``verification.verify``: a fresh grading sandbox after the agent's is stopped): the oracle
must succeed; the null agent (nothing done, empty answer) must be graded
``verification_failed``; every adversarial case (the task's ``checks.toml`` plus the generic
ones of ``taskcases.py``) must be graded ``verification_failed``; every paraphrased correct
answer must succeed. A verifier that crashes (``failed_grader``) on any of them is a miss too:
it would drop agent attempts from the valid-only score.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from agbench.config import SANDBOX_BACKENDS
from agbench.errors import AgbenchError
from agbench.live.sandbox import MissingRequiredProgram, Sandbox, SandboxError, create_sandbox
from agbench.live.sandbox.base import WORK_DIR
from agbench.live.sandbox.dockerd import stop_shared_daemon
from agbench.live.taskcases import (
    CLASSES,
    KINDS,
    Case,
    NotApplicable,
    answer_class_cases,
    declared_cases,
    generic_cases,
    state_class_cases,
    tree_digests,
)
from agbench.live.verification import OracleError, Verdict, run_oracle, verify
from agbench.status import Status
from agbench.task import Task


@dataclass(frozen=True)
class CaseResult:
    kind: str
    name: str
    ok: bool
    detail: str
    cls: str = ""


@dataclass(frozen=True)
class TaskCheck:
    task_id: str
    results: tuple[CaseResult, ...]
    wall_s: float = 0.0
    error: str = ""  # the task could not be checked at all (e.g. a malformed checks.toml)
    not_applicable: tuple[NotApplicable, ...] = ()

    def of(self, kind: str) -> list[CaseResult]:
        return [r for r in self.results if r.kind == kind]

    @property
    def oracle_ok(self) -> bool:
        return any(r.ok for r in self.of("oracle"))

    @property
    def null_ok(self) -> bool:
        """True when the null agent FAILS, as it must."""
        return any(r.ok for r in self.of("null"))

    @property
    def misses(self) -> list[CaseResult]:
        return [r for r in self.results if not r.ok]

    @property
    def ok(self) -> bool:
        return not self.error and self.oracle_ok and self.null_ok and not self.misses

    @property
    def detail(self) -> str:
        parts = [f"{r.kind} '{r.name}': {r.detail}" for r in self.misses]
        if self.error:
            parts.insert(0, self.error)
        counts = ", ".join(f"{k} {sum(r.ok for r in self.of(k))}/{len(self.of(k))}" for k in KINDS)
        return "; ".join(parts) if parts else counts


def judge(case: Case, verdict: Verdict) -> CaseResult:
    """Whether ``verdict`` is what ``case`` must get."""
    if case.must_succeed:
        ok = verdict.status == Status.SUCCESS
    elif case.kind == "exhaustion":  # either verdict, as long as the grader itself survived
        ok = verdict.status in (Status.SUCCESS, Status.VERIFICATION_FAILED)
    else:
        ok = verdict.status == Status.VERIFICATION_FAILED
    what = f"graded {verdict.status} ({verdict.reward:g}): {verdict.reason}"[:400]
    return CaseResult(case.kind, case.name, ok, what, case.cls)


#: Paths removed by one ``rm`` in the sandbox when a case deletes files.
DELETE_BATCH = 200


def _clear(root: Path) -> None:
    for child in root.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


async def _apply(sandbox: Sandbox, case: Case, oracle_state: Path | None) -> None:
    """Bring a started sandbox's /work to the case's state, as an agent would have left it."""
    if case.after_oracle and oracle_state is not None:
        _clear(sandbox.work_dir_host)
        await sandbox.copy_in(oracle_state, WORK_DIR)
    # One exec per batch of paths, not per path: a case that deletes every input of a large
    # task would otherwise start hundreds of sandbox processes in a row and hit its pids limit.
    paths = [f"{WORK_DIR}/{rel}" for rel in case.delete]
    for start in range(0, len(paths), DELETE_BATCH):
        batch = paths[start : start + DELETE_BATCH]
        res = await sandbox.exec(["rm", "-rf", "--", *batch], timeout_s=60, cwd="/")
        if res.exit_code != 0:
            raise SandboxError(f"could not delete {len(batch)} paths: {res.stderr_text.strip()[:300]}")
    for rel, data in case.write.items():
        await sandbox.write_file(f"{WORK_DIR}/{rel}", data)
    for rel in case.sparse:  # made inside the sandbox: a 1 GiB file costs the agent nothing
        res = await sandbox.exec(["truncate", "-s", "1G", f"{WORK_DIR}/{rel}"], timeout_s=60, cwd="/")
        if res.exit_code != 0:
            raise SandboxError(f"could not make {rel} sparse: {res.stderr_text.strip()[:300]}")


async def grade_case(
    task: Task, backend: str, attempt_dir: Path, case: Case, oracle_state: Path | None, oracle_answer: str
) -> Verdict:
    """Grade one case in a fresh sandbox (raises SandboxError/OSError when it cannot)."""
    sandbox = create_sandbox(backend, task, attempt_dir)
    try:
        await sandbox.start()
        await _apply(sandbox, case, oracle_state)
        return await verify(sandbox, task, oracle_answer if case.answer is None else case.answer)
    finally:
        await sandbox.destroy()
        shutil.rmtree(attempt_dir, ignore_errors=True)


async def _grade_case(
    task: Task, backend: str, attempt_dir: Path, case: Case, oracle_state: Path | None, oracle_answer: str
) -> CaseResult:
    try:
        verdict = await grade_case(task, backend, attempt_dir, case, oracle_state, oracle_answer)
    except (SandboxError, OSError) as exc:
        return CaseResult(case.kind, case.name, False, f"sandbox: {exc}", case.cls)
    return judge(case, verdict)


async def run_oracle_case(
    task: Task, backend: str, attempt_dir: Path, state: Path
) -> tuple[CaseResult, str | None]:
    """Run and grade the oracle; keep its end state in ``state`` for the after-oracle cases;
    (the result, the oracle's answer or None when it could not run)."""
    case = Case("oracle", "oracle")
    sandbox = create_sandbox(backend, task, attempt_dir)
    try:
        await sandbox.start()
        answer = await run_oracle(sandbox, task)
        verdict = await verify(sandbox, task, answer)
        shutil.copytree(sandbox.work_dir_host, state, symlinks=True)
    except (OracleError, MissingRequiredProgram) as exc:
        return CaseResult("oracle", "oracle", False, str(exc)), None
    except (SandboxError, OSError) as exc:
        return CaseResult("oracle", "oracle", False, f"sandbox: {exc}"), None
    finally:
        await sandbox.destroy()
        shutil.rmtree(attempt_dir, ignore_errors=True)
    return judge(case, verdict), answer


async def check_task(task: Task, backend: str, work_root: Path) -> TaskCheck:
    t0 = time.monotonic()
    try:
        declared = declared_cases(task)
    except AgbenchError as exc:
        return TaskCheck(task.id, (), time.monotonic() - t0, str(exc))
    state = work_root / f"{task.id}-oracle-state"
    oracle, answer = await run_oracle_case(task, backend, work_root / f"{task.id}-oracle", state)
    results = [oracle]
    cases = [Case("null", "null agent", False, {}, (), "")]
    not_applicable: list[NotApplicable] = []
    if answer is not None:
        inputs, end_state = tree_digests(task.environment_dir), tree_digests(state)
        by_answer, na_answer = answer_class_cases(answer)
        by_state, na_state = state_class_cases(task, state, inputs, end_state)
        cases += generic_cases(task, inputs, end_state) + by_answer + by_state + declared
        not_applicable = na_answer + na_state
    for i, case in enumerate(cases):
        if case.after_oracle and answer is None:
            continue
        attempt_dir = work_root / f"{task.id}-case{i}"
        results.append(await _grade_case(task, backend, attempt_dir, case, state, answer or ""))
    with contextlib.suppress(OSError):
        shutil.rmtree(state)
    return TaskCheck(task.id, tuple(results), time.monotonic() - t0, not_applicable=tuple(not_applicable))


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
    """Oracle, null, adversarial and paraphrase cases for every task, on ``backend``."""
    if backend not in SANDBOX_BACKENDS:
        raise AgbenchError(f"unknown sandbox backend {backend!r} (choose from {', '.join(SANDBOX_BACKENDS)})")
    if not tasks:
        raise AgbenchError("no tasks to check")
    try:
        return asyncio.run(check_tasks_async(tasks, backend, progress=progress))
    finally:
        if backend == "docker":
            stop_shared_daemon()


@dataclass
class Counts:
    passed: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    total: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))


def counts(checks: list[TaskCheck]) -> Counts:
    """Per kind: cases graded as they must be, and cases run (oracle and null: one per task)."""
    out = Counts()
    for check in checks:
        for kind in KINDS:
            rows = check.of(kind)
            total = len(rows) if kind not in ("oracle", "null") else 1
            out.total[kind] += total
            out.passed[kind] += min(sum(r.ok for r in rows), total)
    return out


def class_table(checks: list[TaskCheck]) -> list[str]:
    """Per generic class: on how many tasks it holds (every case of the class graded as it must
    be), on how many it was tried, and on how many it does not apply (with the reasons)."""
    rows = []
    for cls in CLASSES:
        tried = [ch for ch in checks if any(r.cls == cls for r in ch.results)]
        held = [ch for ch in tried if all(r.ok for r in ch.results if r.cls == cls)]
        reasons: dict[str, int] = {}
        for ch in checks:
            for na in ch.not_applicable:
                if na.cls == cls:
                    reasons[na.why] = reasons.get(na.why, 0) + 1
        na_text = "; ".join(f"n/a on {n}: {why}" for why, n in reasons.items())
        rows.append(
            f"  {cls:<26} holds on {len(held)}/{len(tried)} tasks" + (f" ({na_text})" if na_text else "")
        )
    return rows


def summary_line(checks: list[TaskCheck]) -> str:
    """The closing summary: counts per kind, then one line per generic class."""
    c = counts(checks)
    figures = ", ".join(f"{k} {c.passed[k]}/{c.total[k]}" for k in KINDS)
    misses = [ch.task_id for ch in checks if not ch.ok]
    table = "\n".join(["generic classes:", *class_table(checks)])
    if not misses:
        return f"all {len(checks)} tasks pass: {figures}\n{table}"
    return f"{len(misses)} of {len(checks)} tasks miss ({', '.join(misses)}): {figures}\n{table}"


def exit_code(checks: list[TaskCheck]) -> int:
    return 0 if checks and all(c.ok for c in checks) else 1
