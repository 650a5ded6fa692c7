"""The placement sampler against a real process whose two busy threads sit where it put them."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from agbench.live.monitors.thread_placement import PlacementSampler, busiest_threads

CORES = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []

pytestmark = pytest.mark.skipif(
    not os.path.isdir("/proc/self/task") or len(CORES) < 2, reason="needs Linux /proc and two cores"
)

#: A child with two threads that pin themselves to the cores given and then stay runnable.
SPINNERS = """
import os, sys, threading, time
def spin(core):
    os.sched_setaffinity(0, {core})
    end = time.monotonic() + 30
    while time.monotonic() < end:
        sum(range(2000))
for core in map(int, sys.argv[1:]):
    threading.Thread(target=spin, args=(core,), daemon=True).start()
print("ready", flush=True)
sys.stdin.read()
"""


def stacked_share_of(cores: tuple[int, int]) -> float | None:
    """The spinners' stacked share, watched beside a process that has already ended (whose
    samples fail without stopping the others)."""
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    child = subprocess.Popen(
        [sys.executable, "-c", SPINNERS, *map(str, cores)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == b"ready"
        time.sleep(0.3)  # the spinners have used CPU time: they are the busiest threads
        assert len(busiest_threads(child.pid)) == 2
        with PlacementSampler([ended.pid, child.pid], interval_s=0.02) as sampler:
            t0 = time.time()
            time.sleep(0.6)
            return sampler.stacked_share(child.pid, t0, time.time())
    finally:
        child.kill()
        child.wait()


def test_two_threads_on_one_core_read_as_stacked() -> None:
    share = stacked_share_of((CORES[0], CORES[0]))
    assert share == 1.0


def test_two_threads_on_two_cores_read_as_apart() -> None:
    share = stacked_share_of((CORES[0], CORES[1]))
    assert share == 0.0


def test_a_window_without_samples_and_an_unwatched_process() -> None:
    with PlacementSampler([os.getpid()]) as sampler:
        assert sampler.stacked_share(os.getpid(), 0.0, 1.0) is None  # 1970: nothing sampled then
        with pytest.raises(KeyError):
            sampler.stacked_share(os.getpid() + 10**6, 0.0, time.time())
