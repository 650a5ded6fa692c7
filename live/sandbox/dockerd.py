"""A Docker daemon to talk to, started here when none answers.

Personal devices and CI machines have no systemd (DESIGN.md): when no socket answers, we start
``dockerd`` in the background with its own log file and wait for its socket. With no task
needing a network, it runs with ``--iptables=false --bridge=none`` so the host's firewall and
interfaces stay untouched. The caller that started the daemon owns it and stops it
(:meth:`DockerDaemon.stop`); a daemon that was already running is never stopped by us.
:func:`shared_daemon` is the one daemon a process's sandboxes, image builds and harness
containers share.
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agbench.errors import AgbenchError
from agbench.resources import cache_dir

DEFAULT_SOCKET = "/var/run/docker.sock"


class DockerUnavailable(AgbenchError):
    """No Docker daemon answers and none could be started (status failed_sandbox)."""


@dataclass
class DockerDaemon:
    """A daemon we can reach; ``process`` is set only when we started it ourselves."""

    base_url: str
    process: subprocess.Popen[bytes] | None = None
    log_path: Path | None = None

    def client(self, timeout: int = 120) -> Any:
        import docker

        return docker.DockerClient(base_url=self.base_url, timeout=timeout)

    @property
    def started_here(self) -> bool:
        return self.process is not None

    def stop(self, timeout_s: float = 20.0) -> None:
        """Stop the daemon if we started it; leave a pre-existing one alone."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)


def _answers(base_url: str) -> bool:
    import docker

    try:
        client = docker.DockerClient(base_url=base_url, timeout=5)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:
        return False


def socket_url() -> str:
    return os.environ.get("DOCKER_HOST") or f"unix://{DEFAULT_SOCKET}"


def ensure_dockerd(
    *, network: bool = False, log_dir: Path | None = None, wait_s: float = 60.0
) -> DockerDaemon:
    """A reachable daemon: the running one, or one started now in the background."""
    url = socket_url()
    if _answers(url):
        return DockerDaemon(url)
    if not url.startswith("unix://"):
        raise DockerUnavailable(f"no Docker daemon answers at {url}")
    dockerd = shutil.which("dockerd")
    if dockerd is None:
        raise DockerUnavailable(
            "no Docker daemon runs and dockerd is not installed "
            "(apt-get install -y --no-install-recommends docker.io)"
        )
    if os.geteuid() != 0:
        raise DockerUnavailable("no Docker daemon runs and starting dockerd needs root")
    log_dir = log_dir or cache_dir()
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / "dockerd.log"
    cmd = [dockerd, "--host", url]
    if not network:
        cmd += ["--iptables=false", "--bridge=none"]
    log = open(log_path, "ab")  # noqa: SIM115 - handed to the daemon process
    try:
        proc = subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
        )
    finally:
        log.close()
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = log_path.read_text(errors="replace").strip().splitlines()[-2:]
            raise DockerUnavailable(
                f"dockerd exited with {proc.returncode} (log {log_path}): {' | '.join(tail)}"
            )
        if _answers(url):
            return DockerDaemon(url, proc, log_path)
        time.sleep(0.2)
    proc.kill()
    proc.wait()
    raise DockerUnavailable(f"dockerd did not answer within {wait_s:.0f} s (log {log_path})")


_daemon: DockerDaemon | None = None
_daemon_lock = threading.Lock()


def shared_daemon(network: bool = False) -> DockerDaemon:
    """The daemon this process talks to, started once if none was running (see dockerd.py)."""
    global _daemon
    with _daemon_lock:
        if _daemon is not None and not _daemon_alive(_daemon):
            _daemon = None  # another process stopped the daemon we were sharing: start or find one
        if _daemon is None:
            _daemon = ensure_dockerd(network=network)
            if _daemon.started_here:
                atexit.register(stop_shared_daemon)
        return _daemon


def _daemon_alive(daemon: DockerDaemon) -> bool:
    """Cheap liveness: our own dockerd still runs, or a shared one's socket still exists."""
    if daemon.process is not None:
        return daemon.process.poll() is None
    if daemon.base_url.startswith("unix://"):
        return os.path.exists(daemon.base_url[len("unix://") :])
    return True


def stop_shared_daemon() -> None:
    """Stop the daemon if this process started it (tests and ``tasks check`` call this at exit)."""
    global _daemon
    with _daemon_lock:
        if _daemon is not None:
            _daemon.stop()
            _daemon = None
