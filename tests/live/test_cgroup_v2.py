"""bubblewrap sandboxes on a cgroup-v2 host: a group of our own in the unified hierarchy carries
the memory (no swap), pids and CPU limits, and the sandbox reports them as ``cgroup_v2``.

This machine is cgroup v1, so the unified hierarchy is a directory laid out as the kernel lays
it out (``cgroup.controllers`` at the root); what is checked is which files the sandbox writes
and what it then reports as enforced."""

from __future__ import annotations

from pathlib import Path

import pytest

from agbench.live.sandbox import cgroups
from agbench.task import Limits


def test_v2_group_gets_memory_pids_and_cpu_limits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "cgroup.controllers").write_text("cpuset cpu io memory hugetlb pids rdma misc\n")
    monkeypatch.setattr(cgroups, "CGROUP_ROOT", tmp_path)
    limits = Limits(memory_mb=256, pids=64, cpus=1.5)
    group, enforced = cgroups.SandboxCgroups.create("t-1", limits)
    path = tmp_path / "agbench" / "t-1"
    assert enforced == {"memory": "cgroup_v2", "pids": "cgroup_v2", "cpu": "cgroup_v2"}
    assert (path / "memory.max").read_text() == str(256 * 1024 * 1024)
    assert (path / "memory.swap.max").read_text() == "0"
    assert (path / "pids.max").read_text() == "64"
    assert (path / "cpu.max").read_text() == "150000 100000"
    assert (tmp_path / "agbench" / "cgroup.subtree_control").read_text() == "+cpu"  # each written in turn
    assert group.procs_files == [str(path / "cgroup.procs")]
    (path / "cpu.stat").write_text("usage_usec 2500000\nuser_usec 1\n")
    assert group.cpu_usage_s() == 2.5


def test_no_writable_hierarchy_enforces_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cgroups, "CGROUP_ROOT", tmp_path)  # neither v1 controllers nor v2 root
    group, enforced = cgroups.SandboxCgroups.create("t-2", Limits())
    assert enforced == {"memory": False, "pids": False, "cpu": False}
    assert group.procs_files == []
