"""Running the agent's code from a verifier: tests, drivers on hidden inputs, scripts.

The agent's code never runs inside the verifier's process. :func:`run_agent_code` runs it on a
private copy of what a check names (``grading_sandbox``), as uid 65534 (docker) or as pid 1 of
its own user and pid namespace in a private root (bubblewrap), with its own limits; its output
goes to files and is compared, never echoed. Whatever the code does (hang, fork, fill memory or
disk, crash) comes back as an :class:`AgentRun` the verifier judges, never as an exception.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grading_core import Fail
from grading_sandbox import (
    _NAMESPACE_LAUNCHER,
    UNPRIVILEGED_UID,
    AgentLimits,
    _can_switch_uid,
    _chown_tree,
    become_subreaper,
    copy_work,
    disk_used,
    free_bytes,
    kill_descendants,
    limiter,
    on_private_tmpfs,
    remove_scratch,
    scratch_dir,
)

OUTPUT_LIMIT = 10_000_000
POLL_S = 0.01  # how often the disk budget is checked while agent code runs
DEFAULT_LIMITS = AgentLimits()


@dataclass(frozen=True)
class AgentRun:
    """What one run of the agent's code did. Compared by the verifier, never printed raw.

    ``exhausted`` names the limit that ended it ("disk", or "" when none did; memory, file
    size, processes and CPU end it through its own rlimits, seen as its exit status)."""

    exit_code: int
    stdout: bytes
    stderr: bytes
    timed_out: bool
    exhausted: str = ""

    @property
    def stdout_text(self) -> str:
        return self.stdout.decode("utf-8", errors="replace")

    @property
    def stderr_text(self) -> str:
        return self.stderr.decode("utf-8", errors="replace")


def _read_capped(path: str) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(OUTPUT_LIMIT)


def run_agent_code(
    argv: list[str],
    *,
    stdin: bytes = b"",
    timeout_s: float = 30.0,
    files: Mapping[str, bytes] | None = None,
    copy: Iterable[str] | None = None,
    limits: AgentLimits = DEFAULT_LIMITS,
) -> AgentRun:
    """Run the agent's code on a private copy of ``copy`` (paths under /work; None: all of
    /work) plus ``files``, and return its outcome.

    The copy lives in a fresh temp dir of the grading sandbox, each file and the whole of it
    capped (``limits``; over a cap the attempt fails with a reason), so the agent's code can
    neither change what the verifier reads nor see the verifier's files, and a huge or sparse
    file it left costs the verifier nothing. When the verifier runs as root (the docker grading
    sandbox) the code runs as uid 65534, else as pid 1 of its own user and pid namespace; either
    way it cannot signal, trace or write into the verifier. It gets its own session, address
    space, file size, process and CPU limits and a disk budget, is killed with its children at
    ``timeout_s`` or when over budget, and its stdout and stderr go to files. Agent misbehaviour
    never raises."""
    drop = _can_switch_uid()
    become_subreaper()
    scratch = scratch_dir(drop)
    try:
        work = os.path.join(scratch, "work")
        copy_work(copy, work, limits)
        for rel, data in (files or {}).items():
            target = Path(work) / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        home = os.path.join(scratch, "home")
        tmp = os.path.join(scratch, "tmp")
        os.makedirs(home)
        os.makedirs(tmp)
        if not drop:
            argv = [sys.executable or "python3", "-I", "-c", _NAMESPACE_LAUNCHER, *argv]
        if drop:
            _chown_tree(scratch, UNPRIVILEGED_UID)
        env = {
            "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
            "HOME": home,
            "TMPDIR": tmp,
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        if not drop:  # read (and dropped) by the namespace launcher
            env["AGBENCH_DISK_BYTES"] = str(limits.disk_bytes)
        out_path = os.path.join(scratch, "stdout")
        err_path = os.path.join(scratch, "stderr")
        in_path = os.path.join(scratch, "stdin")
        with open(in_path, "wb") as fh:
            fh.write(stdin)
        uid = UNPRIVILEGED_UID if drop else None
        # Under the namespace launcher the copy sits on a tmpfs of its own size; as uid 65534
        # (docker) it shares the grading sandbox's /tmp, so the free space there is watched.
        watched = drop and on_private_tmpfs(scratch)
        budget = min(limits.disk_bytes, free_bytes(scratch) // 2) if watched else -1
        baseline = free_bytes(scratch)
        try:
            with open(in_path, "rb") as fin, open(out_path, "wb") as fout, open(err_path, "wb") as ferr:
                proc = subprocess.Popen(  # running the agent's code is the point
                    argv,
                    cwd=work,
                    env=env,
                    stdin=fin,
                    stdout=fout,
                    stderr=ferr,
                    start_new_session=True,
                    close_fds=True,
                    user=uid,
                    group=uid,
                    extra_groups=[] if drop else None,
                    preexec_fn=limiter(limits, timeout_s),
                )
                code, timed_out, exhausted = _watch(proc, timeout_s, scratch, baseline, budget)
                with contextlib.suppress(OSError):
                    os.killpg(proc.pid, signal.SIGKILL)  # its children too
                kill_descendants()  # and any that left the process group (and reaps ``proc``)
                with contextlib.suppress(ChildProcessError):
                    proc.wait()
        except (OSError, ValueError, subprocess.SubprocessError) as exc:
            return AgentRun(127, b"", f"could not start {argv[:1]}: {exc}".encode(), False)
        return AgentRun(code, _read_capped(out_path), _read_capped(err_path), timed_out, exhausted)
    finally:
        remove_scratch(scratch)


def _watch(
    proc: subprocess.Popen[bytes], timeout_s: float, scratch: str, baseline: int, budget: int
) -> tuple[int, bool, str]:
    """Wait for ``proc``: (exit code, timed out, the budget it exhausted or "")."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return proc.wait(timeout=POLL_S), False, ""
        except subprocess.TimeoutExpired:
            pass
        if time.monotonic() > deadline:
            return -9, True, ""
        with contextlib.suppress(OSError):
            if budget >= 0 and disk_used(scratch, baseline) > budget:
                return -9, False, "disk"


def exhaustion(run: AgentRun) -> str:
    """Why a run ended on a limit, for a reason ("" when it did not): the disk budget, or the
    signal an rlimit sends (SIGXCPU, SIGXFSZ, SIGKILL), or a MemoryError."""
    if run.exhausted:
        return f"agent code exceeded its {run.exhausted} budget"
    if run.exit_code in (-signal.SIGXCPU, 128 + signal.SIGXCPU):
        return "agent code exceeded its CPU time limit"
    if run.exit_code in (-signal.SIGXFSZ, 128 + signal.SIGXFSZ) or "File too large" in run.stderr_text:
        return "agent code exceeded its file size limit"
    if "MemoryError" in run.stderr_text or "Cannot allocate memory" in run.stderr_text:
        return "agent code exceeded its memory limit"
    return ""


def run_unittests(
    package: str,
    *,
    files: Mapping[str, bytes] | None = None,
    label: str = "unit tests",
    min_tests: int = 0,
    timeout_s: float = 60.0,
) -> AgentRun:
    """Run ``python3 -m unittest discover -s tests`` in ``package`` (a folder of /work, the only
    one copied) through :func:`run_agent_code`, ``files`` (the original tests, say) laid over
    the copy; Fail with "<label> fail: <last line of their output>" unless they pass (and, with
    ``min_tests``, at least that many ran: deleting tests is no fix)."""
    run = run_agent_code(
        ["sh", "-c", f"cd {package} && exec python3 -m unittest discover -s tests"],
        files=files,
        timeout_s=timeout_s,
        copy=[package],
    )
    ran = re.search(r"^Ran (\d+) tests?", run.stderr_text, re.MULTILINE)
    too_few = min_tests > 0 and (not ran or int(ran.group(1)) < min_tests)
    if run.timed_out or run.exit_code != 0 or too_few:
        why = exhaustion(run)
        tail = (
            [why]
            if why
            else run.stderr_text.strip().splitlines()[-1:]
            or ["timed out" if run.timed_out else "no test output"]
        )
        raise Fail(f"{label} fail: {tail[0][:160]}")
    return run


def driver_result(run: AgentRun, mark: str, kind: type, *, timed_out: str, incomplete: str) -> Any:
    """What a grading driver (a script the verifier runs with :func:`run_agent_code` on hidden
    inputs) printed as JSON after ``mark`` on its last marked line: a ``kind`` (list or dict).
    Fail with ``timed_out`` when it ran out of time, with ``incomplete`` when it printed no
    such line (it crashed, or the agent's code ended it early)."""
    if run.timed_out:
        raise Fail(timed_out)
    for line in reversed(run.stdout_text.splitlines()):
        if line.startswith(mark):
            try:
                result = json.loads(line[len(mark) :])
            except ValueError:
                break
            if isinstance(result, kind):
                return result
            break
    why = exhaustion(run)
    raise Fail(f"{incomplete} ({why})" if why else incomplete)


def run_driver(
    driver: str,
    mark: str,
    kind: type,
    *,
    timed_out: str,
    incomplete: str,
    stdin: bytes = b"",
    files: Mapping[str, bytes] | None = None,
    timeout_s: float = 60.0,
    copy: Iterable[str] | None = None,
) -> Any:
    """Run ``driver``, a Python script the verifier holds, as ``_grade/driver.py`` in a copy of
    ``copy`` (the agent's package; None: all of /work), ``files`` (hidden inputs, say) beside
    it, through :func:`run_agent_code`, its hidden cases on ``stdin``; return its
    :func:`driver_result`. The driver imports the agent's code, so the agent's code runs only
    there, never in the verifier."""
    run = run_agent_code(
        ["python3", "_grade/driver.py"],
        stdin=stdin,
        files={"_grade/driver.py": driver.encode(), **(files or {})},
        timeout_s=timeout_s,
        copy=copy,
    )
    return driver_result(run, mark, kind, timed_out=timed_out, incomplete=incomplete)
