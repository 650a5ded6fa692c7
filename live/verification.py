"""Grading an attempt with the task's hidden verifier, and running the task's oracle.

The verifier reaches the sandbox only here, after the agent has finished (agbench/task.py has
the contract): its files are copied into /verifier, the agent's final answer is written to
/verifier/answer.txt, and ``python3 /verifier/verify.py`` runs with cwd /work. Its last
non-empty stdout line must be a JSON object ``{"reward": number, "reason": str}``. Anything
else (a crash, a timeout, garbage, a reward outside [0, 1]) is the grader's failure, not the
agent's: status ``failed_grader``, which is excluded from valid scores.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from agbench.errors import AgbenchError
from agbench.live.sandbox import Sandbox
from agbench.live.sandbox.base import SOLUTION_DIR, VERIFIER_DIR, WORK_DIR
from agbench.status import Status
from agbench.task import Task

VERIFIER_TIMEOUT_S = 600.0
SUCCESS_REWARD = 1.0
ANSWER_FILE = "answer.txt"


class OracleError(AgbenchError):
    """The task's own solution failed to run (a broken task, not a model failure)."""


@dataclass(frozen=True)
class Verdict:
    reward: float
    reason: str
    status: Status

    @property
    def success(self) -> bool:
        return self.status == Status.SUCCESS


def parse_verifier_output(stdout: str) -> tuple[float, str]:
    """(reward, reason) from the verifier's last non-empty stdout line; ValueError if garbage."""
    lines = [line.strip() for line in stdout.splitlines() if line.strip()]
    if not lines:
        raise ValueError("the verifier printed nothing")
    try:
        data = json.loads(lines[-1])
    except json.JSONDecodeError:
        raise ValueError(f"the verifier's last line is not JSON: {lines[-1][:200]!r}") from None
    if not isinstance(data, dict) or "reward" not in data:
        raise ValueError(f"the verifier's last line has no reward: {lines[-1][:200]!r}")
    reward = data["reward"]
    if isinstance(reward, bool) or not isinstance(reward, int | float) or not math.isfinite(reward):
        raise ValueError(f"the verifier's reward is not a number: {reward!r}")
    if not 0.0 <= float(reward) <= 1.0:
        raise ValueError(f"the verifier's reward is outside [0, 1]: {reward!r}")
    return float(reward), str(data.get("reason", ""))


async def verify(
    sandbox: Sandbox, task: Task, answer: str, *, timeout_s: float = VERIFIER_TIMEOUT_S
) -> Verdict:
    """Copy the verifier in, hand it the answer, run it and read its verdict."""
    if not (task.verifier_dir / "verify.py").is_file():
        return Verdict(0.0, f"task {task.id} has no verifier/verify.py", Status.FAILED_GRADER)
    try:
        await sandbox.copy_in(task.verifier_dir, VERIFIER_DIR)
        # /verifier is read-only inside; the host side of the bind is where files go.
        (sandbox.verifier_dir_host / ANSWER_FILE).write_text(answer, encoding="utf-8")
        res = await sandbox.exec(["python3", f"{VERIFIER_DIR}/verify.py"], timeout_s=timeout_s, cwd=WORK_DIR)
    except Exception as exc:
        return Verdict(0.0, f"verifier could not run: {exc}", Status.FAILED_GRADER)
    if res.timed_out:
        return Verdict(0.0, f"verifier ran past {timeout_s:g} s", Status.FAILED_GRADER)
    try:
        reward, reason = parse_verifier_output(res.stdout_text)
    except ValueError as exc:
        err = res.stderr_text.strip().splitlines()[-1:] or [""]
        detail = f" (exit {res.exit_code}: {err[0][:200]})" if res.exit_code else ""
        return Verdict(0.0, f"{exc}{detail}", Status.FAILED_GRADER)
    status = Status.SUCCESS if reward >= SUCCESS_REWARD - 1e-9 else Status.VERIFICATION_FAILED
    return Verdict(reward, reason, status)


async def run_oracle(sandbox: Sandbox, task: Task, *, timeout_s: float | None = None) -> str:
    """Run solution/solve.py in the sandbox (cwd /work); its stdout, stripped, is the answer."""
    if not (task.solution_dir / "solve.py").is_file():
        raise OracleError(f"task {task.id} has no solution/solve.py")
    await sandbox.copy_in(task.solution_dir, SOLUTION_DIR)
    limit = timeout_s if timeout_s is not None else task.time_limit_s
    res = await sandbox.exec(["python3", f"{SOLUTION_DIR}/solve.py"], timeout_s=limit, cwd=WORK_DIR)
    if res.timed_out:
        raise OracleError(f"task {task.id}: the oracle ran past {limit:g} s")
    if res.exit_code != 0:
        tail = " | ".join(res.stderr_text.strip().splitlines()[-3:])
        raise OracleError(f"task {task.id}: the oracle exited with {res.exit_code}: {tail}")
    return str(res.stdout_text).strip()
