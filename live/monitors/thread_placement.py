"""Where a CPU server's compute threads run: whether two of them last ran on one core.

Why it is watched: a llama.cpp server's compute threads meet at a barrier after every
operation of a decode step, so a server whose two threads the kernel has put on one core
(*stacked*) advances one operation per scheduler time slice and nearly stops. Two two-thread
servers on two cores, measured here (``python bench/twin_progress.py --placement``): 0.11-0.16
of their speed alone with one thread of each per core (llama.cpp's ``--cpu-strict 1``), a few
thousandths with each server's threads stacked, and, left to the kernel, the first figure
times the share of the time not stacked (docs/design.md, "Where the threads run"). That share
is the kernel's choice and moves with the period, so a figure measured beside another server
records it.

Linux only (``/proc/PID/task/TID/stat``); elsewhere nothing is sampled and every share is None.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from agbench.live.monitors.sampler_thread import Done, Sampler, SamplerThread

#: A server's threads whose CPU time is counted: ggml's compute threads (the server loop's own
#: thread computes as thread 0 beside its workers) use nearly all of a busy server's CPU.
COMPUTE_THREADS = 2
#: How often the compute threads are picked again (a pick reads every thread of the server).
REPICK_S = 1.0


def thread_stat(path: str) -> tuple[int, int]:
    """(user + system clock ticks, the core it last ran on) from one thread's stat file."""
    with open(path) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12]), int(fields[36])


def busiest_threads(pid: int, n: int = COMPUTE_THREADS) -> list[str]:
    """The stat files of the ``n`` threads of ``pid`` with the most CPU time so far."""
    base = f"/proc/{pid}/task"
    ticks: dict[str, int] = {}
    for tid in os.listdir(base):
        path = f"{base}/{tid}/stat"
        try:
            ticks[path] = thread_stat(path)[0]
        except OSError:  # the thread ended meanwhile
            continue
    return sorted(ticks, key=lambda p: ticks[p], reverse=True)[:n]


@dataclass
class _Watched:
    pid: int
    threads: list[str] = field(default_factory=list)
    picked_at: float = -1e18
    ticks: int = -1  # the threads' CPU ticks at the previous sample (-1: none yet)
    stamps: list[float] = field(default_factory=list)  # epoch seconds of the samples kept
    stacked: list[bool] = field(default_factory=list)


class PlacementSampler(Sampler):
    """Every ``interval_s``, on a thread of its own, whether each watched process's compute
    threads last ran on one core; :meth:`stacked_share` reads a window of it. Finer than the
    other monitors (a thread is put elsewhere in milliseconds); a context manager."""

    def __init__(self, pids: Sequence[int], interval_s: float = 0.1) -> None:
        self.available = os.path.isdir("/proc/self/task")
        self._watched = [_Watched(pid) for pid in pids]
        self._lock = threading.Lock()
        self._thread = SamplerThread(self.sample_once, interval_s, "agbench-thread-placement")

    def start(self) -> Done:
        return super().start() if self.available and self._watched else Done()

    def _close(self) -> None:
        pass

    def sample_once(self) -> None:
        """One sample per watched process, kept only where its compute threads used CPU since
        the previous one: where an idle server's sleeping threads last ran says nothing."""
        now = time.time()
        for w in self._watched:
            if now - w.picked_at >= REPICK_S or len(w.threads) < COMPUTE_THREADS:
                try:
                    threads, w.picked_at = busiest_threads(w.pid), now
                except OSError:  # the process has ended: the others are still sampled
                    continue
                if threads != w.threads:
                    w.threads, w.ticks = threads, -1
            if len(w.threads) < COMPUTE_THREADS:
                continue
            try:
                stats = [thread_stat(p) for p in w.threads]
            except OSError:
                w.picked_at = -1e18  # a thread ended: pick again next time
                continue
            ticks = sum(t for t, _ in stats)
            computing = 0 <= w.ticks < ticks
            w.ticks = ticks
            if computing:
                with self._lock:
                    w.stamps.append(now)
                    w.stacked.append(len({core for _, core in stats}) == 1)

    def stacked_share(self, pid: int, t0: float, t1: float) -> float | None:
        """The share of samples in ``[t0, t1]`` (epoch seconds) in which ``pid``'s compute
        threads, computing, last ran on one core; None where none computed there."""
        for w in self._watched:
            if w.pid != pid:
                continue
            with self._lock:
                inside = [s for t, s in zip(w.stamps, w.stacked, strict=True) if t0 <= t <= t1]
            return sum(inside) / len(inside) if inside else None
        raise KeyError(f"process {pid} is not watched")


__all__ = ["COMPUTE_THREADS", "PlacementSampler", "busiest_threads", "thread_stat"]
