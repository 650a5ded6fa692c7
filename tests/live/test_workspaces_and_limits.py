"""Sandboxes: the limits that took effect are recorded in run.json (and the report's labels say
which were not enforced); ``--keep-workspaces`` keeps attempt workspaces in the run directory.
Real bubblewrap sandboxes, the null agent (no model)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from agbench.live.runner import SweepOptions, run_sweep
from agbench.metrics import labels_of
from agbench.store import RunStore

pytestmark = [
    pytest.mark.bwrap,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed"),
]


def sweep(tmp_path: Path, **kw: Any) -> RunStore:
    options = SweepOptions(
        agent="null", limit=2, out=tmp_path / "run", runs_root=tmp_path / "runs", quiet=True,
        write_reports=False, **kw,
    )  # fmt: skip
    return RunStore.open(run_sweep(options))


def test_limits_that_took_effect_are_recorded(tmp_path: Path) -> None:
    store = sweep(tmp_path)
    limits = store.meta()["sandbox_limits"]
    assert sum(limits.values()) == 2
    [line] = limits
    assert line.startswith("bwrap: ")
    assert "memory=" in line
    assert "pids=" in line


def test_report_labels_name_limits_not_enforced() -> None:
    meta = {"sandbox_limits": {"bwrap: memory=cgroup_v1 pids=no cpu=no": 3}}
    assert labels_of(meta) == ["sandbox limits not enforced: pids, cpu (bwrap, 3 attempts)"]
    assert labels_of({"sandbox_limits": {"bwrap: memory=cgroup_v1 pids=cgroup_v1": 3}}) == []


def test_keep_failed_workspaces(tmp_path: Path) -> None:
    store = sweep(tmp_path, keep_workspaces="failed")  # the null agent fails every task
    kept = sorted(p.name for p in (store.root / "workspaces").iterdir())
    assert len(kept) == 2
    assert all((store.root / "workspaces" / k / "work").is_dir() for k in kept)


def test_workspaces_are_removed_by_default(tmp_path: Path) -> None:
    store = sweep(tmp_path)
    assert not (store.root / "workspaces").exists()
