"""Resuming a sweep: killed with SIGKILL or stopped with Ctrl-C, then ``--resume DIR``.

The sweep runs in a real subprocess (``python -m agbench.cli sweep``, oracle agent, real
bubblewrap sandboxes). Whatever the moment of the kill, after resuming every (configuration,
task) pair has exactly one finished attempt; attempts cut short stay in the journal as
``interrupted`` and finished ones are never re-run.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from agbench.status import Status
from agbench.store import AttemptKey, RunStore

pytestmark = [
    pytest.mark.bwrap,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed"),
]

CONFIGS = 2  # LO and CO at C = 1
TASKS = 10


def start_sweep(run_dir: Path, cwd: Path) -> subprocess.Popen[bytes]:
    cmd = [
        sys.executable, "-m", "agbench.cli", "sweep", "--agent", "oracle", "--archs", "LO,CO",
        "--concurrency", "1", "--limit", str(TASKS), "--out", str(run_dir), "--quiet",
    ]  # fmt: skip
    return subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def attempts(run_dir: Path) -> dict[AttemptKey, Status | None]:
    if not (run_dir / "run.json").is_file():
        return {}
    try:
        return RunStore(run_dir).attempts()
    except Exception:  # a journal caught mid-creation (header not yet written)
        return {}


def wait_until_mid_run(
    proc: subprocess.Popen[bytes], run_dir: Path, timeout_s: float = 120
) -> dict[AttemptKey, Status | None]:
    """Return once some attempts finished and one is in flight (or enough finished)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            _out, err = proc.communicate()
            pytest.fail(
                f"the sweep ended before it could be interrupted (rc {proc.returncode}): {err.decode()[-500:]}"
            )
        seen = attempts(run_dir)
        finished = [k for k, s in seen.items() if s is not None]
        in_flight = [k for k, s in seen.items() if s is None]
        if len(finished) >= 3 and (in_flight or len(finished) >= 6):
            return seen
        time.sleep(0.1)  # reading the journal costs milliseconds (tens, late in a sweep)
    proc.kill()
    pytest.fail("the sweep made no progress")


def check_one_finished_attempt_per_pair(run_dir: Path, before: dict[AttemptKey, Status | None]) -> None:
    after = RunStore.open(run_dir).attempts()
    pairs: dict[tuple[str, str], list[tuple[int, Status | None]]] = {}
    for key, status in after.items():
        pairs.setdefault((key.config, key.task), []).append((key.attempt, status))
    assert len(pairs) == CONFIGS * TASKS
    for pair, tries in pairs.items():
        finished = [n for n, s in tries if s is not None and s != Status.INTERRUPTED]
        assert len(finished) == 1, (pair, tries)
        assert all(s is not None for _, s in tries), (pair, tries)  # nothing left unclosed
        interrupted = [n for n, s in tries if s == Status.INTERRUPTED]
        assert all(n < finished[0] for n in interrupted), (pair, tries)
    for key, status in before.items():
        if (
            status is not None and status != Status.INTERRUPTED
        ):  # finished before the kill: kept as it was, never re-run
            assert after[key] == status
            assert len(pairs[(key.config, key.task)]) == 1
        else:  # cut off by the kill: kept as interrupted, run again as a new attempt
            assert after[key] == Status.INTERRUPTED
    runs = RunStore.open(run_dir).table("task_runs")
    counted = runs[runs.status != Status.INTERRUPTED.value]
    assert len(counted) == CONFIGS * TASKS
    assert (counted.status == "success").all()


def test_sigkill_then_resume_runs_each_pair_exactly_once(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    proc = start_sweep(run_dir, tmp_path)
    wait_until_mid_run(proc, run_dir)
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    before = attempts(run_dir)
    assert any(s is None for s in before.values()) or len(before) < CONFIGS * TASKS
    resumed = subprocess.run(
        [sys.executable, "-m", "agbench.cli", "sweep", "--resume", str(run_dir), "--quiet"],
        cwd=tmp_path, capture_output=True, timeout=300,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr.decode()[-2000:]
    check_one_finished_attempt_per_pair(run_dir, before)
    assert (run_dir / "summary.json").is_file()
    assert (tmp_path / "runs" / "latest" / "summary.json").is_file()
    run_id = RunStore.open(run_dir).meta()["run_id"]
    assert not list(Path(tempfile.gettempdir()).glob(f"agbench-{run_id}-*"))  # no host folders left


def test_ctrl_c_stops_cleanly_and_resumes(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    proc = start_sweep(run_dir, tmp_path)
    wait_until_mid_run(proc, run_dir)
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode != 0
    message = err.decode()
    assert f"agbench: error: sweep stopped; continue it with: agbench sweep --resume {run_dir}" in message
    # No traceback from the harness itself. (The sandbox's pipe readers may still log asyncio's
    # "exception was never retrieved" for their cancelled gather: reported, not the runner's.)
    assert "live/runner.py" not in message
    assert "live/agents" not in message
    stopped = RunStore.open(run_dir).attempts()
    assert all(s is not None for s in stopped.values())  # the journal was closed, attempts too
    assert len(stopped) < CONFIGS * TASKS
    run_id = RunStore.open(run_dir).meta()["run_id"]
    assert not list(Path(tempfile.gettempdir()).glob(f"agbench-{run_id}-*"))  # sandboxes torn down
    resumed = subprocess.run(
        [sys.executable, "-m", "agbench.cli", "sweep", "--resume", str(run_dir), "--quiet"],
        cwd=tmp_path, capture_output=True, timeout=300, env={**os.environ},
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr.decode()[-2000:]
    check_one_finished_attempt_per_pair(run_dir, stopped)


def test_a_resume_runs_the_tasks_run_json_recorded_in_that_order(tmp_path: Path) -> None:
    """The agbench that resumes a sweep may order or limit the suite another way than the one
    that started it (a new selection rule, a changed suite): the resumed sweep runs the tasks
    its run.json recorded, in that order, not what ``--limit`` would pick now."""
    from agbench.task import load_suite, select_tasks

    run_dir = tmp_path / "run"
    cmd = [
        sys.executable, "-m", "agbench.cli", "sweep", "--agent", "oracle", "--archs", "LO",
        "--concurrency", "1", "--limit", "1", "--out", str(run_dir), "--quiet",
    ]  # fmt: skip
    first = subprocess.run(cmd, cwd=tmp_path, capture_output=True, timeout=300)
    assert first.returncode == 0, first.stderr.decode()[-2000:]
    chosen = select_tasks(load_suite(), seed=0)
    assert RunStore.open(run_dir).run_meta().task_order == [chosen[0].id]
    # as if another agbench had started it: a task today's rule puts elsewhere, then the one run
    meta_path = run_dir / "run.json"
    meta = json.loads(meta_path.read_text())
    meta["task_order"] = [chosen[5].id, chosen[0].id]
    meta_path.write_text(json.dumps(meta, indent=2))
    assert RunStore.open(run_dir).run_meta().task_order == [chosen[5].id, chosen[0].id]
    resumed = subprocess.run(
        [sys.executable, "-m", "agbench.cli", "sweep", "--resume", str(run_dir), "--quiet"],
        cwd=tmp_path, capture_output=True, timeout=300,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr.decode()[-2000:]
    runs = RunStore.open(run_dir).table("task_runs").sort_values("t_start")
    assert list(runs["task"]) == [chosen[0].id, chosen[5].id]  # the recorded one, and only it, added
