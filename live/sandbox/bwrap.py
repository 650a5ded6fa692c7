"""The light backend: bubblewrap, one fresh set of namespaces per exec (~10 ms).

Each exec runs ``bwrap`` with every namespace unshared (no network unless the task declares
it), the cached base root filesystem bound read-only as ``/``, the attempt's host dirs bound at
/work (rw), /tmp (rw) and /verifier, /solution (ro), all capabilities dropped, uid/gid 1000,
no-new-privileges (bubblewrap always sets it), a new session (no terminal injection) and
``--die-with-parent``. Because the pid namespace dies with the command, nothing an exec starts
outlives it: unlike Docker, background processes do not persist between execs. State that must
persist lives in /work or /tmp, which are host folders of the attempt.

Limits come from the sandbox's cgroup v1 groups (``cgroups.py``); a small ``/bin/sh`` stub
joins the groups and then execs bubblewrap, so every process of the command is inside before it
runs. Where the groups are not writable, ``prlimit`` sets RLIMIT_AS (address space) and, for
a non-root user, RLIMIT_NPROC instead, and ``limits_enforced`` says which limits hold.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import time
import uuid
from pathlib import Path

from agbench.task import Task

from .assets_mount import bwrap_asset_args
from .base import (
    DEFAULT_PATH,
    PRISTINE_DIR,
    SOLUTION_DIR,
    VERIFIER_DIR,
    WORK_DIR,
    ExecResult,
    Sandbox,
    SandboxError,
)
from .cgroups import SandboxCgroups
from .images import GRADER_UID, SANDBOX_GID, SANDBOX_UID, ensure_rootfs
from .process_io import communicate_with_deadline
from .task_image import ensure_task_rootfs

# Joins the cgroups named in $AGBENCH_CGROUP_PROCS, then execs bubblewrap (or prlimit).
_LAUNCHER = (
    'for f in $AGBENCH_CGROUP_PROCS; do echo $$ > "$f" || exit 125; done; '
    'unset AGBENCH_CGROUP_PROCS; exec "$@"'
)


class BwrapSandbox(Sandbox):
    backend = "bwrap"

    def __init__(self, task: Task, attempt_dir: Path) -> None:
        super().__init__(task, attempt_dir)
        self.tmp_dir_host = attempt_dir / "tmp"
        self.rootfs: Path | None = None
        self.cgroups: SandboxCgroups | None = None
        self._bwrap = shutil.which("bwrap")
        self._running: set[asyncio.subprocess.Process] = set()
        self._launcher_env: dict[str, str] = {}
        self._rlimit_prefix: list[str] = []

    async def _start(self) -> None:
        if self._bwrap is None:
            raise SandboxError("bubblewrap not found: apt-get install -y --no-install-recommends bubblewrap")
        if self.task.dockerfile is not None:  # the task image's exported root (task_image.py)
            self.rootfs = await asyncio.to_thread(ensure_task_rootfs, self.task)
        else:
            self.rootfs = await asyncio.to_thread(ensure_rootfs)
        if self.grading is None:  # a grading twin gets a fresh tmpfs instead
            if self.tmp_dir_host.exists():
                shutil.rmtree(self.tmp_dir_host)
            self.tmp_dir_host.mkdir(parents=True)
            os.chmod(self.tmp_dir_host, 0o1777)
        name = f"{self.task.id}-{uuid.uuid4().hex[:10]}".replace("/", "_")
        self.cgroups, enforced = SandboxCgroups.create(name, self.task.limits)
        env = {"PATH": os.environ.get("PATH", DEFAULT_PATH)}
        procs = self.cgroups.procs_files
        if procs:
            env["AGBENCH_CGROUP_PROCS"] = " ".join(procs)
        rlimits = []
        prlimit = shutil.which("prlimit")
        if not enforced["memory"] and prlimit:
            rlimits.append(f"--as={self.task.limits.memory_mb * 1024 * 1024}")
            enforced["memory"] = "rlimit_as"
        # RLIMIT_NPROC counts every process of the real user and is ignored for root.
        if not enforced["pids"] and prlimit and os.geteuid() != 0:
            rlimits.append(f"--nproc={self.task.limits.pids}")
            enforced["pids"] = "rlimit_nproc"
        self._rlimit_prefix = [prlimit, *rlimits, "--"] if prlimit and rlimits else []
        self._launcher_env = env
        self.limits_enforced = {
            **enforced,
            "network": not self.task.network,
            "read_only_root": True,
            "cap_drop": True,
            "no_new_privileges": True,
        }

    def _rootfs_for_checks(self) -> Path | None:
        return self.rootfs

    def _grading_args(self) -> list[str]:
        """The grading twin: /work read-only, verifier and pristine inputs read-only, a fresh
        tmpfs as HOME and TMPDIR, uid 1001 (the agent was 1000), no network. Agent code the
        verifier runs goes into a nested user+pid namespace (agbench_grading.run_agent_code),
        which bubblewrap allows because it does not disable user namespaces."""
        assert self.grading is not None
        assert self.rootfs is not None
        return [
            "--die-with-parent",
            "--new-session",
            "--ro-bind", str(self.rootfs), "/",
            "--dev", "/dev",
            "--proc", "/proc",
            "--ro-bind", str(self.work_dir_host), WORK_DIR,
            "--tmpfs", "/tmp",
            "--ro-bind", str(self.grading.verifier_dir), VERIFIER_DIR,
            "--ro-bind", str(self.grading.pristine_dir), PRISTINE_DIR,
            "--hostname", "grader",
            "--cap-drop", "ALL",
            "--uid", str(GRADER_UID),
            "--gid", str(GRADER_UID),
            "--clearenv",
            "--setenv", "PATH", DEFAULT_PATH,
            "--setenv", "HOME", "/tmp",
            "--setenv", "LANG", "C.UTF-8",
            "--setenv", "TMPDIR", "/tmp",
            "--setenv", "USER", "grader",
        ]  # fmt: skip

    def _bwrap_args(self, cmd: list[str], cwd: str, env: dict[str, str] | None) -> list[str]:
        assert self._bwrap is not None
        assert self.rootfs is not None
        args = [self._bwrap, "--unshare-all"]
        if self.grading is not None:
            args += self._grading_args()
            for key, value in (env or {}).items():
                args += ["--setenv", key, value]
            args += bwrap_asset_args(self.task)  # the suite's assets, read-only
            return [*self._rlimit_prefix, *args, "--chdir", cwd, "--", *cmd]
        if self.task.network:
            args += ["--share-net", "--ro-bind-try", "/etc/resolv.conf", "/etc/resolv.conf"]
        args += [
            "--die-with-parent",
            "--new-session",
            "--ro-bind", str(self.rootfs), "/",
            "--dev", "/dev",
            "--proc", "/proc",
            "--bind", str(self.work_dir_host), WORK_DIR,
            "--bind", str(self.tmp_dir_host), "/tmp",
            "--ro-bind", str(self.verifier_dir_host), VERIFIER_DIR,
            "--ro-bind", str(self.solution_dir_host), SOLUTION_DIR,
            "--hostname", "sandbox",
            "--cap-drop", "ALL",
            "--uid", str(SANDBOX_UID),
            "--gid", str(SANDBOX_GID),
            "--clearenv",
            "--setenv", "PATH", DEFAULT_PATH,
            "--setenv", "HOME", WORK_DIR,
            "--setenv", "LANG", "C.UTF-8",
            "--setenv", "TMPDIR", "/tmp",
            "--setenv", "USER", "agent",
        ]  # fmt: skip
        for key, value in (env or {}).items():
            args += ["--setenv", key, value]
        args += bwrap_asset_args(self.task)  # the suite's assets, read-only
        args += ["--chdir", cwd, "--", *cmd]
        return [*self._rlimit_prefix, *args]

    async def exec(
        self,
        cmd: list[str],
        *,
        timeout_s: float,
        stdin: bytes | None = None,
        cwd: str = WORK_DIR,
        env: dict[str, str] | None = None,
    ) -> ExecResult:
        if self.rootfs is None or self.destroyed or self.stopped:
            raise SandboxError("exec on a bwrap sandbox that is not running")
        if not cmd:
            raise SandboxError("exec needs a command")
        args = self._bwrap_args(cmd, cwd, env)
        cpu0 = self.cgroups.cpu_usage_s() if self.cgroups else None
        t0 = time.monotonic()
        proc = await asyncio.create_subprocess_exec(
            "/bin/sh", "-c", _LAUNCHER, "agbench-launch", *args,
            stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self._launcher_env,
            start_new_session=True,
        )  # fmt: skip
        self._running.add(proc)
        try:
            out, err, code, timed_out = await communicate_with_deadline(proc, stdin, timeout_s)
        finally:
            self._running.discard(proc)
        wall = time.monotonic() - t0
        cpu1 = self.cgroups.cpu_usage_s() if self.cgroups else None
        cpu = (cpu1 - cpu0) if cpu0 is not None and cpu1 is not None else 0.0
        if code < 0:  # killed by a signal: report as a shell would
            code = 128 - code
        if timed_out:
            code = 137
        return ExecResult(out, err, code, wall, max(cpu, 0.0), timed_out)

    async def destroy(self) -> None:
        if self.destroyed:
            return
        self.destroyed = True
        for proc in list(self._running):
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        for proc in list(self._running):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(proc.wait(), timeout=5)
        if self.cgroups is not None:
            await asyncio.to_thread(self.cgroups.remove)
        if self.tmp_dir_host.exists():
            await asyncio.to_thread(shutil.rmtree, self.tmp_dir_host, True)
        await asyncio.to_thread(self._disarm_host_files)
