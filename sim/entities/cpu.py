"""CPU cores shared by processor sharing: tool processes and, on CPU-only devices, inference.

Each consumer asks for some cores (its *demand*: a tool's cpu_s / wall_s, inference's thread
count). While the total demand fits the cores everyone gets what they ask; beyond that
everyone is scaled down by the same factor, as the kernel's fair scheduler does for busy
threads. Jobs with work (tools) advance at their allocation; between changes the allocation
is constant, so the next completion is computed analytically (no time slicing).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import simpy

EPS = 1e-9
INF = float("inf")


@dataclass(eq=False)
class CpuJob:
    demand: float  # cores it would use alone
    remaining: float  # core-seconds left
    done: simpy.Event
    rate: float = 0.0


class ProcessorSharingCPU:
    def __init__(self, env: simpy.Environment, cores: float) -> None:
        self.env = env
        self.cores = float(cores)
        self.jobs: list[CpuJob] = []
        self._consumers: dict[str, float] = {}  # name -> demand (no work: e.g. inference threads)
        self._listeners: dict[str, Callable[[float], None]] = {}
        self._alloc: dict[str, float] = {}
        self._t = env.now
        self._generation = 0
        self.replans = 0

    # ---- public ------------------------------------------------------------------------
    def run(self, work_core_s: float, demand: float) -> simpy.Event:
        """A job needing ``work_core_s`` core-seconds at up to ``demand`` cores; fires when done."""
        done = self.env.event()
        if work_core_s <= EPS or demand <= EPS:
            done.succeed()
            return done
        self._advance()
        self.jobs.append(CpuJob(demand, work_core_s, done))
        self._replan(notify=None)
        return done

    def cancel(self, done: simpy.Event) -> None:
        self._advance()
        self.jobs = [j for j in self.jobs if j.done is not done]
        self._replan(notify=None)

    def add_consumer(self, name: str, listener: Callable[[float], None]) -> None:
        """A consumer without work whose allocation matters (inference threads)."""
        self._consumers[name] = 0.0
        self._listeners[name] = listener
        self._alloc[name] = 0.0

    def set_demand(self, name: str, demand: float) -> float:
        """Change a consumer's demand; returns its new allocation (others are notified)."""
        if self._consumers.get(name) == demand:
            return self._alloc[name]
        self._advance()
        self._consumers[name] = demand
        self._replan(notify=name)
        return self._alloc[name]

    def allocation(self, name: str) -> float:
        return self._alloc.get(name, 0.0)

    def busy_cores(self) -> float:
        return min(self.cores, sum(j.demand for j in self.jobs) + sum(self._consumers.values()))

    # ---- fluid mechanics ---------------------------------------------------------------
    def _advance(self) -> None:
        now = self.env.now
        dt = now - self._t
        if dt > 0:
            for job in self.jobs:
                job.remaining -= job.rate * dt
        self._t = now

    def _replan(self, notify: str | None) -> None:
        self.replans += 1
        jobs = self.jobs
        finished: list[CpuJob] = []
        kept: list[CpuJob] = []
        total: float = 0  # left-to-right float additions, as ``sum()`` does them (bit-identical)
        for job in jobs:
            if job.remaining <= EPS * (job.demand if job.demand > 1.0 else 1.0):
                finished.append(job)
            else:
                kept.append(job)
                total += job.demand
        if finished:
            self.jobs = jobs = kept
            for job in finished:
                job.done.succeed()
        consumers = self._consumers
        if consumers:
            total += sum(consumers.values())
        scale = 1.0 if total <= self.cores else self.cores / total
        next_dt = INF
        for job in jobs:
            job.rate = job.demand * scale
            left = job.remaining / job.rate
            if left < next_dt:
                next_dt = left
        changed: list[str] = []
        if consumers:
            alloc = self._alloc
            for name, demand in consumers.items():
                new = demand * scale
                if abs(new - alloc[name]) > EPS:
                    changed.append(name)
                alloc[name] = new
        self._generation += 1
        if next_dt < INF:
            generation = self._generation
            wake = self.env.timeout(next_dt if next_dt > 0.0 else 0.0)
            wake.callbacks.append(lambda _ev: self._wake(generation))
        for name in changed:
            if name != notify:
                self._listeners[name](self._alloc[name])

    def _wake(self, generation: int) -> None:
        if generation != self._generation:
            return  # superseded by a later re-plan
        self._advance()
        for job in self.jobs:  # the job that set the wake-up is done up to float error
            if job.rate > 0 and job.remaining / job.rate <= EPS:
                job.remaining = 0.0
        self._replan(notify=None)


__all__ = ["CpuJob", "ProcessorSharingCPU"]
