"""The managed-server watchdog, against the real llama-server (SmolLM2).

- a killed server is restarted with the same settings at the same URL, and run.json counts it;
- a hung server (SIGSTOP: the process lives, ``/health`` never answers) is killed and restarted;
- in a replay sweep, the attempt in flight when the server is killed is an
  ``infrastructure_error`` and every later attempt proceeds against the restarted server.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import threading
import time
from pathlib import Path

import psutil
import pytest

from agbench.config import Architecture, Configuration, ServerSettings
from agbench.live.runner import SweepOptions, run_sweep
from agbench.live.runner.endpoints import EndpointManager
from agbench.live.runner.watchdog import ServerWatchdog
from agbench.run_meta import RunMeta
from agbench.status import Status
from agbench.store import RunStore

pytestmark = [pytest.mark.server, pytest.mark.slow]

SETTINGS = ServerSettings(n_ctx=512, n_parallel=1, threads=1)
CONFIG = Configuration("box", Architecture.LO, 1)


async def watched(tmp_path: Path, fault: signal.Signals) -> tuple[ServerWatchdog, str, str, RunStore]:
    """Start a managed server, hit it with ``fault``, and wait for the watchdog to bring it back."""
    store = RunStore.create(tmp_path / "run", RunMeta(run_id="w"))
    manager = EndpointManager(SweepOptions(), store, on_call=lambda record: None)
    server = await manager.server("local", SETTINGS, "smollm2-135m", CONFIG)
    url_before = server.url
    dog = ServerWatchdog(manager, interval_s=0.2, health_timeout_s=0.5, misses=2)
    dog.start()
    try:
        assert server.pid is not None
        os.kill(server.pid, fault)
        for _ in range(600):  # up to a minute on a loaded machine
            if dog.restarts and server.alive():
                break
            await asyncio.sleep(0.1)
        url_after = server.url
    finally:
        await dog.stop()
        await manager.stop_servers()
    return dog, url_before, url_after, store


def test_killed_server_is_restarted_with_the_same_settings(tmp_path: Path) -> None:
    dog, before, after, store = asyncio.run(watched(tmp_path, signal.SIGKILL))
    assert dog.generation == 1
    assert dog.restarts == {"local": 1}
    assert dog.failure is None
    assert before == after
    assert store.meta()["server_restarts"] == 1


def test_hung_server_is_killed_and_restarted(tmp_path: Path) -> None:
    dog, before, after, _ = asyncio.run(watched(tmp_path, signal.SIGSTOP))
    assert dog.restarts == {"local": 1}
    assert before == after


def server_processes(besides: frozenset[int] = frozenset()) -> list[psutil.Process]:
    """Live model-server children but those in ``besides`` (the session's shared server, which
    this worker may already hold: killing it would fail the tests that use it next); a killed
    one not yet reaped (a zombie) is not running."""
    found = []
    for p in psutil.Process().children(recursive=True):
        try:
            if p.pid not in besides and "agbench.live.serving.server_process" in " ".join(p.cmdline()):
                found.append(p)
        except (psutil.ZombieProcess, psutil.NoSuchProcess):
            continue
    return found


@pytest.mark.bwrap
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")
def test_attempt_in_flight_fails_as_infrastructure_and_later_ones_proceed(tmp_path: Path) -> None:
    from agbench.live.trajectories import synthesize
    from agbench.task import load_suite, select_tasks

    tasks = select_tasks(load_suite(), limit=3, seed=0)
    trajectories = tmp_path / "traj.jsonl"
    synthesize(tasks).save(trajectories)
    run_dir = tmp_path / "run"
    killed: list[str] = []
    sweep_done = threading.Event()
    others = frozenset(p.pid for p in server_processes())  # servers this sweep did not start

    def kill_mid_attempt() -> None:
        """SIGKILL the server once the second attempt is in flight (its journal has no row yet).
        It watches for as long as the sweep runs: a fixed window is too short when another test
        worker shares the cores."""
        while not sweep_done.is_set() and not killed:
            try:
                seen = RunStore(run_dir).attempts() if (run_dir / "run.json").is_file() else {}
            except Exception:
                seen = {}
            if any(k.attempt == 1 and s is None for k, s in seen.items()) and len(seen) >= 2:
                for proc in server_processes(others):
                    proc.kill()
                    killed.append(str(proc.pid))
            time.sleep(0.1)  # reading the journal costs milliseconds: poll gently

    killer = threading.Thread(target=kill_mid_attempt, daemon=True)
    killer.start()
    options = SweepOptions(
        archs=[Architecture.LO], concurrency=[1], limit=3, agent="replay", trajectories=trajectories,
        out=run_dir, runs_root=tmp_path / "runs", quiet=True, write_reports=False,
    )  # fmt: skip
    try:
        run_sweep(options)
    finally:
        sweep_done.set()
    killer.join(5)
    assert killed, "the server was never killed"
    store = RunStore.open(run_dir)
    runs = store.table("task_runs").sort_values("t_start")
    statuses = list(runs.status)
    assert len(statuses) == 3
    assert Status.INTERRUPTED.value not in statuses
    assert statuses[1] == Status.INFRASTRUCTURE_ERROR.value, runs.reason.tolist()
    assert "restart" in runs.reason.iloc[1] or "died" in runs.reason.iloc[1]
    assert statuses[2] != Status.INFRASTRUCTURE_ERROR.value, runs.reason.tolist()
    assert store.meta()["server_restarts"] == 1
    assert not server_processes(others)  # the restarted server was stopped with the sweep
