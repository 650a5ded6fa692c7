"""Resource limits for bubblewrap sandboxes through cgroup v1 controllers.

bubblewrap has no resource limits of its own (DESIGN.md). Where the v1 ``memory``, ``pids``,
``cpu`` and ``cpuacct`` hierarchies are writable (root on the device), each sandbox gets its
own group under ``agbench/`` in each; a process joins by writing its pid into ``cgroup.procs``
before it execs bubblewrap, so everything it starts is inside. The group also measures CPU time
and lets ``destroy`` find and kill anything still running. Where a controller is not writable,
that limit is reported as not enforced and the caller falls back to rlimits. On a cgroup-v2
host (no v1 controllers) the sandbox gets a group of its own in the unified hierarchy instead,
where that is writable (``create_v2``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

from agbench.task import Limits

CGROUP_ROOT = Path("/sys/fs/cgroup")
PARENT = "agbench"
CONTROLLERS = ("memory", "pids", "cpu", "cpuacct", "freezer")
CFS_PERIOD_US = 100_000


def _controller_dir(name: str) -> Path | None:
    """The v1 hierarchy of a controller, if mounted and writable by us."""
    base = CGROUP_ROOT / name
    if not (base / "cgroup.procs").is_file() or not os.access(base, os.W_OK):
        return None
    return base.resolve()


@dataclass
class SandboxCgroups:
    """One sandbox's groups, one per available controller (shared hierarchies counted once)."""

    name: str
    dirs: dict[str, Path] = field(default_factory=dict)

    @classmethod
    def create(cls, name: str, limits: Limits) -> tuple[SandboxCgroups, dict[str, bool | str]]:
        """Make the groups and set the limits; returns which limits took effect."""
        group = cls(name)
        for ctrl in CONTROLLERS:
            base = _controller_dir(ctrl)
            if base is None:
                continue
            path = base / PARENT / name
            try:
                path.mkdir(parents=True, exist_ok=True)
            except OSError:
                continue
            group.dirs[ctrl] = path
        enforced: dict[str, bool | str] = {"memory": False, "pids": False, "cpu": False}
        mem = group.dirs.get("memory")
        if mem is not None:
            limit = str(limits.memory_mb * 1024 * 1024)
            if _write(mem / "memory.limit_in_bytes", limit):
                # Without swap accounting a bomb could page out instead of being stopped.
                _write(mem / "memory.memsw.limit_in_bytes", limit)
                enforced["memory"] = "cgroup_v1"
        pids = group.dirs.get("pids")
        if pids is not None and _write(pids / "pids.max", str(limits.pids)):
            enforced["pids"] = "cgroup_v1"
        cpu = group.dirs.get("cpu")
        if cpu is not None:
            quota = max(1000, int(limits.cpus * CFS_PERIOD_US))
            if _write(cpu / "cpu.cfs_period_us", str(CFS_PERIOD_US)) and _write(
                cpu / "cpu.cfs_quota_us", str(quota)
            ):
                enforced["cpu"] = "cgroup_v1"
        if not any(enforced.values()):
            group.create_v2(limits, enforced)
        return group, enforced

    def create_v2(self, limits: Limits, enforced: dict[str, bool | str]) -> None:
        """On a cgroup-v2 host (no v1 controllers), a group of our own under ``agbench/`` when
        the unified hierarchy is writable (root, or a delegated subtree): memory (no swap),
        pids and CPU limits, as the v1 groups set them. Nothing is enforced where it is not."""
        if not (CGROUP_ROOT / "cgroup.controllers").is_file() or not os.access(CGROUP_ROOT, os.W_OK):
            return
        wanted = [
            c for c in ("memory", "pids", "cpu") if c in _read(CGROUP_ROOT / "cgroup.controllers").split()
        ]
        parent = CGROUP_ROOT / PARENT
        try:
            parent.mkdir(exist_ok=True)
            path = parent / self.name
            path.mkdir(exist_ok=True)
        except OSError:
            return
        for level in (CGROUP_ROOT, parent):  # each controller must be handed down level by level
            for ctrl in wanted:
                _write(level / "cgroup.subtree_control", f"+{ctrl}")
        self.dirs["unified"] = path
        if _write(path / "memory.max", str(limits.memory_mb * 1024 * 1024)):
            _write(path / "memory.swap.max", "0")
            enforced["memory"] = "cgroup_v2"
        if _write(path / "pids.max", str(limits.pids)):
            enforced["pids"] = "cgroup_v2"
        quota = max(1000, int(limits.cpus * CFS_PERIOD_US))
        if _write(path / "cpu.max", f"{quota} {CFS_PERIOD_US}"):
            enforced["cpu"] = "cgroup_v2"

    @property
    def procs_files(self) -> list[str]:
        seen: set[Path] = set()
        files = []
        for path in self.dirs.values():
            if path not in seen:
                seen.add(path)
                files.append(str(path / "cgroup.procs"))
        return files

    def cpu_usage_s(self) -> float | None:
        acct = self.dirs.get("cpuacct")
        unified = self.dirs.get("unified")
        if acct is None and unified is not None:  # cgroup v2: cpu.stat's usage_usec
            for line in _read(unified / "cpu.stat").splitlines():
                if line.startswith("usage_usec "):
                    return int(line.split()[1]) / 1e6
            return None
        if acct is None:
            return None
        try:
            return int((acct / "cpuacct.usage").read_text()) / 1e9
        except (OSError, ValueError):
            return None

    def pids(self) -> set[int]:
        found: set[int] = set()
        for f in self.procs_files:
            with contextlib.suppress(OSError, ValueError):
                found.update(int(x) for x in Path(f).read_text().split())
        return found

    def kill_all(self, wait_s: float = 5.0) -> bool:
        """SIGKILL everything in the groups (frozen first, so nothing forks meanwhile)."""
        freezer = self.dirs.get("freezer")
        deadline = time.monotonic() + wait_s
        if "unified" in self.dirs:  # cgroup v2 kills the whole group at once
            _write(self.dirs["unified"] / "cgroup.kill", "1")
        while True:
            pids = self.pids()
            if not pids:
                if freezer is not None:
                    _write(freezer / "freezer.state", "THAWED")
                return True
            if freezer is not None:
                _write(freezer / "freezer.state", "FROZEN")
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            if freezer is not None:
                _write(freezer / "freezer.state", "THAWED")
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)

    def remove(self) -> None:
        self.kill_all()
        for path in set(self.dirs.values()):
            for _ in range(50):
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)
        self.dirs.clear()


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _write(path: Path, value: str) -> bool:
    try:
        path.write_text(value)
        return True
    except OSError:
        return False
