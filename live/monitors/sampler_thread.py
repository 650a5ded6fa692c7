"""A fixed-rate background thread that also measures its own CPU cost.

Samplers run as threads, not asyncio tasks, so a busy or blocked harness event loop cannot
delay them (a late sample would hide exactly the congestion it should show). Each thread
counts the CPU time it spends (``time.thread_time``), so the sampling overhead is a measured
figure, not a guess.
"""

from __future__ import annotations

import abc
import threading
import time
from collections.abc import Callable, Generator
from typing import Any, Self

from agbench.attempt import RunScope


class SamplerThread:
    def __init__(self, sample: Callable[[], object], interval_s: float, name: str) -> None:
        if interval_s <= 0:
            raise ValueError("interval_s must be positive")
        self._sample = sample
        self.interval_s = interval_s
        self.name = name
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.cpu_s = 0.0
        self.samples = 0
        self.errors = 0
        self.last_error = ""
        self._t_started = 0.0
        self._t_stopped: float | None = None

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError(f"{self.name} already started")
        self._stop.clear()
        self._t_started = time.monotonic()
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
            self._t_stopped = time.monotonic()

    def _run(self) -> None:
        next_at = time.monotonic()
        while not self._stop.is_set():
            cpu0 = time.thread_time()
            try:
                self._sample()
                self.samples += 1
            except Exception as exc:  # a failed poll must not end sampling (the server may come back)
                self.errors += 1
                self.last_error = f"{type(exc).__name__}: {exc}"[:300]
            self.cpu_s += time.thread_time() - cpu0
            next_at += self.interval_s
            delay = next_at - time.monotonic()
            if delay < 0:  # fell behind: skip missed ticks instead of bursting
                next_at = time.monotonic()
                delay = 0
            self._stop.wait(delay)

    @property
    def cpu_fraction(self) -> float:
        """CPU seconds spent sampling per wall second (1.0 = one core)."""
        end = self._t_stopped if self._t_stopped is not None else time.monotonic()
        wall = end - self._t_started
        return self.cpu_s / wall if wall > 0 else 0.0


def scope_ids(scope: RunScope | None) -> dict[str, Any]:
    """The identity columns of a run-level sample: the scope's, or blanks for a bare sampler
    (a benchmark or a test that measures without a run)."""
    if scope is None:
        return {"run_id": "", "device": "", "architecture": "", "concurrency": 0}
    return scope.ids()


class Done:
    """What ``start()`` / ``stop()`` return: they act at once, and awaiting this is a no-op, so
    the harness's async code may write ``await sampler.start()`` and sync code need not."""

    def __await__(self) -> Generator[None, None, None]:
        yield from ()


class Sampler(abc.ABC):
    """What both monitors share: a SamplerThread calling ``sample_once``, start/stop, and the
    thread's own counters. Subclasses set ``self._thread`` and release what they hold in
    ``_close``."""

    _thread: SamplerThread

    @abc.abstractmethod
    def sample_once(self) -> object:
        """Take one sample and hand it to the writer (each monitor reads its own source)."""

    @abc.abstractmethod
    def _close(self) -> None:
        """Release what the sampler holds (an HTTP client, NVML)."""

    def start(self) -> Done:
        self._thread.start()
        return Done()

    def stop(self) -> Done:
        self._thread.stop()
        self._close()
        return Done()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def cpu_fraction(self) -> float:
        return float(self._thread.cpu_fraction)

    @property
    def samples(self) -> int:
        return int(self._thread.samples)

    @property
    def errors(self) -> int:
        return int(self._thread.errors)
