"""The paper's backend: one fresh Docker container per attempt, through the docker SDK.

The container runs the local ``agbench/base`` image (imported from the cached root filesystem,
never pulled) with a read-only root, /tmp as tmpfs, the attempt's work dir bind-mounted at
/work and its (still empty) verifier and solution dirs bind-mounted read-only: ``read_only``
rules out ``put_archive``, so files arrive through the host side of the binds. Network
``none`` unless the task declares one; memory (swap included), pids and CPU limits from the
task; all capabilities dropped; no-new-privileges; uid/gid 1000; tini as pid 1 so orphans are
reaped.

Each exec is wrapped in coreutils ``timeout -s KILL`` so a hung command dies inside the
container at its deadline; a host-side deadline a little later catches anything that escaped
the wrapper's process group and kills every process of the container but init. When an exec
ends, what is left of its process group is killed, so, as with bubblewrap, background jobs do
not outlive the command that started them (only a ``setsid`` daemon does, until destroy).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import signal
import socket
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from agbench.task import Task

from .assets_mount import with_assets
from .base import (
    DEFAULT_PATH,
    PRISTINE_DIR,
    SOLUTION_DIR,
    VERIFIER_DIR,
    WORK_DIR,
    ExecResult,
    Sandbox,
    SandboxError,
    chown_tree,
)
from .dockerd import shared_daemon
from .images import SANDBOX_GID, SANDBOX_UID, ensure_docker_image, rootfs_dir, rootfs_ready
from .process_io import MAX_CAPTURE_BYTES
from .task_image import ensure_task_image

T = TypeVar("T")
TMPFS_SIZE_MB = 512
GRADER_USER = "0:0"
# What the grading container's root keeps: read any file of /work, hand the agent code's
# private copy to uid 65534, switch to it, and kill it at its deadline.
GRADER_CAPS = ("CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "SETUID", "SETGID", "KILL")
HOST_GRACE_S = 5.0
# Docker SDK calls block; a long exec holds a thread for its whole run, so with many concurrent
# attempts the default executor (cores + 4 threads) would queue other sandboxes' calls.
_EXECUTOR = ThreadPoolExecutor(max_workers=128, thread_name_prefix="agbench-docker")


async def _blocking(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_EXECUTOR, functools.partial(fn, *args, **kwargs))


def _cgroup_cpu_s(container_id: str) -> float | None:
    for path in (
        Path(f"/sys/fs/cgroup/cpuacct/docker/{container_id}/cpuacct.usage"),
        Path(f"/sys/fs/cgroup/cpu,cpuacct/docker/{container_id}/cpuacct.usage"),
    ):
        try:
            return int(path.read_text()) / 1e9
        except (OSError, ValueError):
            continue
    return None


def _run_exec(api: Any, exec_id: str, stdin: bytes | None) -> tuple[bytes, bytes]:
    """Start an exec over a hijacked socket: feed stdin, half-close, read demuxed frames."""
    from docker.utils.socket import frames_iter

    sock = api.exec_start(exec_id, socket=True, demux=False)
    raw = getattr(sock, "_sock", sock)
    out, err = bytearray(), bytearray()
    try:
        if stdin:
            raw.sendall(stdin)
        with contextlib.suppress(OSError):
            raw.shutdown(socket.SHUT_WR)
        for stream, data in frames_iter(sock, tty=False):
            sink = out if stream == 1 else err
            room = MAX_CAPTURE_BYTES - len(sink)
            if room > 0 and data:
                sink += data[:room]
    finally:
        with contextlib.suppress(Exception):
            sock.close()
    return bytes(out), bytes(err)


class DockerSandbox(Sandbox):
    backend = "docker"

    def __init__(self, task: Task, attempt_dir: Path) -> None:
        super().__init__(task, attempt_dir)
        self.container: Any = None
        self.container_id: str | None = None
        self._client: Any = None
        if os.geteuid() == 0:
            self.host_owner = (SANDBOX_UID, SANDBOX_GID)

    @property
    def _exec_user(self) -> str:
        return GRADER_USER if self.grading is not None else f"{SANDBOX_UID}:{SANDBOX_GID}"

    def _container_config(self) -> dict[str, Any]:
        """Mounts, user and privileges: the agent's container, or the grading twin's.

        The grading container runs the verifier as root (not the agent's uid 1000) with only
        the capabilities it needs to read every file of /work and to run the agent's code as
        uid 65534 on a private copy (agbench_grading.run_agent_code): /work, /verifier and
        /pristine are read-only binds, /tmp a fresh tmpfs, no network."""
        if self.grading is None:
            return {
                "network_mode": "bridge" if self.task.network else "none",
                "volumes": {
                    str(self.work_dir_host.resolve()): {"bind": WORK_DIR, "mode": "rw"},
                    str(self.verifier_dir_host.resolve()): {"bind": VERIFIER_DIR, "mode": "ro"},
                    str(self.solution_dir_host.resolve()): {"bind": SOLUTION_DIR, "mode": "ro"},
                },
                "cap_drop": ["ALL"],
                "user": f"{SANDBOX_UID}:{SANDBOX_GID}",
                "environment": {"HOME": WORK_DIR, "LANG": "C.UTF-8", "TMPDIR": "/tmp"},
                "hostname": "sandbox",
            }
        return {
            "network_mode": "none",
            "volumes": {
                str(self.work_dir_host.resolve()): {"bind": WORK_DIR, "mode": "ro"},
                str(self.grading.verifier_dir.resolve()): {"bind": VERIFIER_DIR, "mode": "ro"},
                str(self.grading.pristine_dir.resolve()): {"bind": PRISTINE_DIR, "mode": "ro"},
            },
            "cap_drop": ["ALL"],
            "cap_add": list(GRADER_CAPS),
            "user": GRADER_USER,
            "environment": {"HOME": "/tmp", "LANG": "C.UTF-8", "TMPDIR": "/tmp"},
            "hostname": "grader",
        }

    def _rootfs_for_checks(self) -> Path | None:
        # The image is imported from this folder; without it, check by exec inside.
        if self.task.dockerfile is not None:  # the task's own image (task_image.py)
            return None
        return rootfs_dir() if rootfs_ready() else None

    async def _start(self) -> None:
        await _blocking(self._start_sync)

    def _start_sync(self) -> None:
        import docker.errors

        daemon = shared_daemon(network=self.task.network)
        self._client = daemon.client()
        image = ensure_docker_image(self._client)
        if self.task.dockerfile is not None:  # built from environment/Dockerfile, cached
            image = ensure_task_image(self._client, self.task)
        if os.geteuid() == 0 and self.grading is None:
            chown_tree(self.work_dir_host, SANDBOX_UID, SANDBOX_GID)
        limits = self.task.limits
        mem = f"{limits.memory_mb}m"
        name = f"agbench-{self.task.id}-{uuid.uuid4().hex[:10]}".replace("/", "_")
        try:
            self.container = self._client.containers.run(
                image,
                command=["sleep", "infinity"],
                name=name,
                detach=True,
                init=True,
                read_only=True,
                tmpfs={"/tmp": f"rw,nosuid,nodev,exec,size={TMPFS_SIZE_MB}m,mode=1777"},
                mem_limit=mem,
                memswap_limit=mem,
                pids_limit=limits.pids,
                nano_cpus=int(limits.cpus * 1e9),
                security_opt=["no-new-privileges"],
                working_dir=WORK_DIR,
                **with_assets(self._container_config(), self.task),  # suite assets, read-only
                labels={"agbench": "sandbox", "agbench.task": self.task.id},
            )
        except docker.errors.DockerException as exc:
            # A container can be created and then fail to start: do not leave it behind.
            with contextlib.suppress(docker.errors.DockerException):
                self._client.containers.get(name).remove(force=True, v=True)
            raise SandboxError(f"docker could not start a container for {self.task.id}: {exc}") from None
        self.container_id = self.container.id
        attrs = self._client.api.inspect_container(self.container_id)["HostConfig"]
        self.limits_enforced = {
            "memory": "docker" if attrs.get("Memory") else False,
            "pids": "docker" if attrs.get("PidsLimit") else False,
            "cpu": "docker" if attrs.get("NanoCpus") else False,
            "network": attrs.get("NetworkMode") == "none",
            "read_only_root": bool(attrs.get("ReadonlyRootfs")),
            "cap_drop": "ALL" in (attrs.get("CapDrop") or []),
            "no_new_privileges": "no-new-privileges" in (attrs.get("SecurityOpt") or []),
        }

    async def exec(
        self,
        cmd: list[str],
        *,
        timeout_s: float,
        stdin: bytes | None = None,
        cwd: str = WORK_DIR,
        env: dict[str, str] | None = None,
    ) -> ExecResult:
        if self.container_id is None or self.destroyed or self.stopped:
            raise SandboxError("exec on a docker sandbox that is not running")
        if not cmd:
            raise SandboxError("exec needs a command")
        api = self._client.api
        wrapped = ["timeout", "-s", "KILL", f"{max(timeout_s, 0.01):.3f}", *cmd]
        environment = {"PATH": DEFAULT_PATH, **(env or {})}
        cpu0 = _cgroup_cpu_s(self.container_id)
        t0 = time.monotonic()
        try:
            exec_id = await _blocking(
                api.exec_create,
                self.container_id,
                wrapped,
                stdout=True,
                stderr=True,
                stdin=stdin is not None,
                workdir=cwd,
                environment=environment,
                user=self._exec_user,
            )
        except Exception as exc:
            raise SandboxError(f"docker exec failed: {exc}") from None
        exec_id = exec_id["Id"]
        timed_out = False
        runner = asyncio.ensure_future(_blocking(_run_exec, api, exec_id, stdin))
        try:
            out, err = await asyncio.wait_for(asyncio.shield(runner), timeout=timeout_s + HOST_GRACE_S)
        except TimeoutError:
            # Something escaped the in-container timeout while holding the output open.
            timed_out = True
            await _blocking(self._kill_all_but_init)
            try:
                out, err = await asyncio.wait_for(runner, timeout=10)
            except TimeoutError:
                out, err = b"", b""
        wall = time.monotonic() - t0
        info = await _blocking(api.exec_inspect, exec_id)
        if info.get("Pid"):
            await _blocking(self._kill_process_group, int(info["Pid"]))
        code = info.get("ExitCode")
        code = 137 if code is None else int(code)
        if wall >= timeout_s and code in (124, 137):
            timed_out = True
        if timed_out:
            code = 137
        cpu1 = _cgroup_cpu_s(self.container_id)
        cpu = (cpu1 - cpu0) if cpu0 is not None and cpu1 is not None else 0.0
        return ExecResult(out, err, code, wall, max(cpu, 0.0), timed_out)

    def _container_pids(self) -> list[int]:
        for ctrl in ("pids", "memory", "cpuacct"):
            path = Path(f"/sys/fs/cgroup/{ctrl}/docker/{self.container_id}/cgroup.procs")
            try:
                return [int(x) for x in path.read_text().split()]
            except (OSError, ValueError):
                continue
        return []

    def _kill_process_group(self, pgid: int) -> None:
        """Kill what the exec left behind in its process group (the ``timeout`` wrapper leads
        it), so that, as with bubblewrap, an exec's processes do not outlive it: a fork bomb or
        a stray ``cmd &`` would otherwise hold the container's pids and output open. Only
        processes of this container are touched."""
        for pid in self._container_pids():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                if os.getpgid(pid) == pgid:
                    os.kill(pid, signal.SIGKILL)

    def _kill_all_but_init(self) -> None:
        """SIGKILL every process of the container except tini and its keep-alive child."""
        try:
            top = self._client.api.top(self.container_id, ps_args="-eo pid,ppid,args")
        except Exception:
            return
        titles = top.get("Titles", [])
        rows = top.get("Processes") or []
        if "PID" not in titles:
            return
        pid_i = titles.index("PID")
        args_i = titles.index("COMMAND") if "COMMAND" in titles else len(titles) - 1
        for row in rows:
            args = row[args_i]
            if args.startswith(("/sbin/docker-init", "sleep infinity")):
                continue
            with contextlib.suppress(ProcessLookupError, PermissionError, ValueError):
                os.kill(int(row[pid_i]), signal.SIGKILL)

    async def destroy(self) -> None:
        if self.destroyed:
            return
        self.destroyed = True
        if self.container is not None:
            await _blocking(self._remove_container)
        elif self._client is not None:
            with contextlib.suppress(Exception):
                self._client.close()
        await _blocking(self._disarm_host_files)

    def _remove_container(self) -> None:
        import docker.errors

        try:
            self.container.remove(force=True, v=True)
        except docker.errors.NotFound:
            pass
        except docker.errors.APIError as exc:
            if "already in progress" not in str(exc):
                raise SandboxError(f"could not remove container {self.container_id}: {exc}") from None
        with contextlib.suppress(Exception):
            self._client.close()
