"""Grading an attempt with the task's hidden verifier, and running the task's oracle.

The verifier never runs where the agent ran. :func:`verify` first stops the agent's sandbox
(no agent process survives), then grades in a fresh grading sandbox of the same backend
(``Sandbox.grading_twin``): the attempt's work dir read-only at /work, the task's verifier plus
``agbench_grading.py`` (with its ``grading_*.py`` parts) plus ``answer.txt`` read-only at /verifier, the task's pristine
``environment/`` read-only at /pristine, HOME and TMPDIR on a fresh tmpfs, a uid other than
the agent's, and ``python3 -I`` (no user site, no PYTHON* variables, no script dir from /work).
Nothing the agent left in /work (a ``usercustomize.py``, a ``.pth`` file, an exit hook) can
load into the verifier.

The verifier's last non-empty stdout line must be ``{"reward": number, "reason": str}``.
Anything else (a crash, a timeout, garbage, a reward outside [0, 1]) is the grader's failure:
status ``failed_grader``, excluded from valid scores. Verifiers built on ``agbench_grading.main``
turn every exception into reward 0, so ``failed_grader`` means a verifier that is itself broken.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from agbench.errors import AgbenchError
from agbench.live.sandbox import Sandbox
from agbench.live.sandbox.base import SOLUTION_DIR, VERIFIER_DIR, WORK_DIR, GradingMounts, copy_tree
from agbench.resources import grading_module
from agbench.status import Status
from agbench.task import Task

VERIFIER_TIMEOUT_S = 600.0
SUCCESS_REWARD = 1.0
ANSWER_FILE = "answer.txt"
GRADING_MODULE = grading_module()
# ``python3 -I`` leaves the script's folder off sys.path; /verifier (read-only, ours) goes back
# on so ``from agbench_grading import ...`` works. The cwd (/work) is never on it.


def verifier_command(verifier_dir: str, python: str = "python3") -> list[str]:
    """``python3 -I`` running ``<verifier_dir>/verify.py`` as __main__ with only
    ``verifier_dir`` (not the cwd) added to sys.path, so the verifier imports agbench_grading."""
    code = (
        f"import sys, runpy; sys.path.insert(0, {verifier_dir!r}); "
        f"runpy.run_path({verifier_dir + '/verify.py'!r}, run_name='__main__')"
    )
    return [python, "-I", "-c", code]


VERIFIER_COMMAND = verifier_command(VERIFIER_DIR)


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


def prepare_verifier_dir(task: Task, answer: str, dest: Path) -> Path:
    """``dest`` filled as /verifier sees it: the task's verifier files, the grading module and
    the agent's answer. A fresh folder the agent's sandbox never had bound."""
    if dest.exists():
        shutil.rmtree(dest)
    copy_tree(task.verifier_dir, dest)
    for module in sorted(GRADING_MODULE.parent.glob("*.py")):  # agbench_grading and its parts
        shutil.copy2(module, dest / module.name)
    (dest / ANSWER_FILE).write_text(answer, encoding="utf-8")
    # Only the verifier's own uid may enter: agent code a verifier runs as another uid (65534
    # under Docker and on a host) cannot read the expected values. (Under bubblewrap the
    # verifier and that code share a uid; there the code runs in a private root instead.)
    os.chmod(dest, 0o700)
    return dest


async def verify(
    sandbox: Sandbox, task: Task, answer: str, *, timeout_s: float = VERIFIER_TIMEOUT_S
) -> Verdict:
    """Stop the agent's sandbox, then grade its /work in a fresh grading sandbox."""
    if not (task.verifier_dir / "verify.py").is_file():
        return Verdict(0.0, f"task {task.id} has no verifier/verify.py", Status.FAILED_GRADER)
    try:
        await sandbox.stop()
        verifier_dir = prepare_verifier_dir(task, answer, sandbox.attempt_dir / "grading" / "verifier")
        pristine = task.environment_dir
        if not pristine.is_dir():  # a task without inputs (rt-transit-pass) still gets an empty /pristine
            pristine = sandbox.attempt_dir / "grading" / "no-inputs"
            pristine.mkdir(parents=True, exist_ok=True)
        grader = sandbox.grading_twin(GradingMounts(verifier_dir, pristine))
        try:
            await grader.start()
            res = await grader.exec(VERIFIER_COMMAND, timeout_s=timeout_s, cwd=WORK_DIR)
        finally:
            await grader.destroy()
    except Exception as exc:
        return Verdict(0.0, f"verifier could not run: {exc}", Status.FAILED_GRADER)
    return verdict_from(res.stdout_text, res.stderr_text, res.exit_code, res.timed_out, timeout_s)


def grade_on_host(
    task: Task, work_dir: Path, answer: str, *, python: str = "python3", timeout_s: float = 300.0
) -> Verdict:
    """Grade ``work_dir`` with the task's verifier on the host, unsandboxed (the suite's quick
    self-test, not for agent attempts): same module, same ``-I`` command, the task's
    ``environment/`` as the pristine inputs (``$AGBENCH_PRISTINE``)."""
    with tempfile.TemporaryDirectory(prefix=f"agb-grade-{task.id}-") as tmp:
        verifier_dir = prepare_verifier_dir(task, answer, Path(tmp) / "verifier")
        command = [python, *VERIFIER_COMMAND[1:]]
        command[-1] = command[-1].replace(repr(VERIFIER_DIR), repr(str(verifier_dir)))
        command[-1] = command[-1].replace(
            repr(VERIFIER_DIR + "/verify.py"), repr(str(verifier_dir / "verify.py"))
        )
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            "HOME": tmp,
            "TMPDIR": tmp,
            "AGBENCH_PRISTINE": str(task.environment_dir),
        }
        try:
            proc = subprocess.run(
                command, cwd=work_dir, capture_output=True, timeout=timeout_s, env=env, check=False
            )
        except subprocess.TimeoutExpired:
            return verdict_from("", "", 137, True, timeout_s)
    out, err = (b.decode("utf-8", errors="replace") for b in (proc.stdout, proc.stderr))
    return verdict_from(out, err, proc.returncode, False, timeout_s)


def verdict_from(stdout: str, stderr: str, exit_code: int, timed_out: bool, timeout_s: float) -> Verdict:
    """The verdict a verifier's output gives (``failed_grader`` when it gives none)."""
    if timed_out:
        return Verdict(0.0, f"verifier ran past {timeout_s:g} s", Status.FAILED_GRADER)
    try:
        reward, reason = parse_verifier_output(stdout)
    except ValueError as exc:
        err = stderr.strip().splitlines()[-1:] or [""]
        detail = f" (exit {exit_code}: {err[0][:200]})" if exit_code else ""
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
