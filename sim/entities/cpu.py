"""CPU cores shared by processor sharing: tool processes and, on CPU-only devices, inference.

Each consumer asks for some cores (its *demand*: a tool's cpu_s / wall_s, inference's thread
count). While the total demand fits the cores everyone gets what they ask. Beyond that the
cores are shared the way Linux's fair scheduler shares them between *scheduling groups*: with
autogroup (``/proc/sys/kernel/sched_autogroup_enabled``, on by default on desktop kernels) every
session is a group, and a sandboxed tool starts a session of its own (bubblewrap
``--new-session``; a Docker container is a cgroup of its own). Groups get equal shares of the
cores, none more than it asks (water-filling), and inside a group its members are scaled down
by the same factor. With one group this is plain proportional sharing. The harness, its model
servers and their CPU work are one group (``HARNESS``, their common session); a job started
with ``group=None`` is a group of its own.

Measured on this machine (docs/design.md, "CPU groups"): two one-thread servers decoding in the
harness's session slow from 13.5 to 19.5 ms per token beside a busy loop in the same session
(proportional sharing: 1.5x) and to 24.8 ms beside one in a session of its own (groups: 2x).

Consumers without work (inference threads) are told their allocation and the cores other
groups took from them (``displaced``: what they would get were their group alone, less what
they get), because a server whose threads lose a core to another group slows down far more
than in proportion (entities/local_server.py). Jobs with work (tools) advance at their
allocation; between changes the allocation is constant, so the next completion is computed
analytically (no time slicing).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import simpy

EPS = 1e-9
INF = float("inf")
#: The scheduling group of the harness's own session: its model servers and its CPU work.
HARNESS = "harness"


@dataclass(eq=False)
class CpuJob:
    demand: float  # cores it would use alone
    remaining: float  # core-seconds left
    done: simpy.Event
    rate: float = 0.0
    group: object = HARNESS  # its scheduling group (a job of a group of its own: the job itself)


def water_fill(demands: dict[object, float], cores: float) -> dict[object, float]:
    """Equal shares of ``cores`` for every group, none above its demand, the rest shared out
    again among the others (what the fair scheduler gives groups of equal weight)."""
    left, allocation = cores, {}
    pending = sorted(demands.items(), key=lambda item: item[1])
    for i, (group, demand) in enumerate(pending):
        level = left / (len(pending) - i)
        take = demand if demand < level else level
        allocation[group] = take
        left -= take
    return allocation


class ProcessorSharingCPU:
    def __init__(self, env: simpy.Environment, cores: float) -> None:
        self.env = env
        self.cores = float(cores)
        self.jobs: list[CpuJob] = []
        self._consumers: dict[str, float] = {}  # name -> demand (no work: e.g. inference threads)
        self._groups: dict[str, object] = {}  # consumer name -> its scheduling group
        self._listeners: dict[str, Callable[[float, float], None]] = {}
        self._alloc: dict[str, float] = {}
        self._displaced: dict[str, float] = {}
        self._t = env.now
        self._generation = 0
        self.replans = 0

    # ---- public ------------------------------------------------------------------------
    def run(self, work_core_s: float, demand: float, group: object = HARNESS) -> simpy.Event:
        """A job needing ``work_core_s`` core-seconds at up to ``demand`` cores, in scheduling
        group ``group`` (None: a group of its own, as a sandboxed tool's session); fires when done."""
        done = self.env.event()
        if work_core_s <= EPS or demand <= EPS:
            done.succeed()
            return done
        self._advance()
        job = CpuJob(demand, work_core_s, done)
        job.group = job if group is None else group
        self.jobs.append(job)
        self._replan(notify=None)
        return done

    def cancel(self, done: simpy.Event) -> None:
        self._advance()
        self.jobs = [j for j in self.jobs if j.done is not done]
        self._replan(notify=None)

    def add_consumer(
        self, name: str, listener: Callable[[float, float], None], group: object = HARNESS
    ) -> None:
        """A consumer without work whose allocation matters (inference threads); ``listener``
        hears its allocation and the cores other groups displaced it from."""
        self._consumers[name] = 0.0
        self._groups[name] = group
        self._listeners[name] = listener
        self._alloc[name] = 0.0
        self._displaced[name] = 0.0

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

    def displaced(self, name: str) -> float:
        """The cores other scheduling groups take from consumer ``name`` now."""
        return self._displaced.get(name, 0.0)

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
        scales = self._group_scales(total)
        next_dt = INF
        for job in jobs:
            job.rate = job.demand * (scales[job.group][0] if scales else 1.0)
            left = job.remaining / job.rate
            if left < next_dt:
                next_dt = left
        changed: list[str] = []
        if consumers:
            alloc, displaced = self._alloc, self._displaced
            for name, demand in consumers.items():
                scale, alone = scales[self._groups[name]] if scales else (1.0, 1.0)
                new = demand * scale
                lost = demand * alone - new if alone > scale else 0.0
                if abs(new - alloc[name]) > EPS or abs(lost - displaced[name]) > EPS:
                    changed.append(name)
                alloc[name] = new
                displaced[name] = lost
        self._generation += 1
        if next_dt < INF:
            generation = self._generation
            wake = self.env.timeout(next_dt if next_dt > 0.0 else 0.0)
            wake.callbacks.append(lambda _ev: self._wake(generation))
        for name in changed:
            if name != notify:
                self._listeners[name](self._alloc[name], self._displaced[name])

    def _group_scales(self, total: float) -> dict[object, tuple[float, float]]:
        """Per scheduling group: the factor its members' demands are scaled by, and the one
        they would have were the group alone on the cores; empty while everything fits."""
        if total <= self.cores:
            return {}
        demand: dict[object, float] = {}
        for job in self.jobs:
            demand[job.group] = demand.get(job.group, 0.0) + job.demand
        for name, d in self._consumers.items():
            group = self._groups[name]
            demand[group] = demand.get(group, 0.0) + d
        if len(demand) == 1:  # one group: plain proportional sharing (``total`` is its demand)
            return {group: (self.cores / total, self.cores / total) for group in demand}
        allocation = water_fill(demand, self.cores)
        return {
            group: (allocation[group] / d, min(1.0, self.cores / d)) if d > 0 else (1.0, 1.0)
            for group, d in demand.items()
        }

    def _wake(self, generation: int) -> None:
        if generation != self._generation:
            return  # superseded by a later re-plan
        self._advance()
        for job in self.jobs:  # the job that set the wake-up is done up to float error
            if job.rate > 0 and job.remaining / job.rate <= EPS:
                job.remaining = 0.0
        self._replan(notify=None)


__all__ = ["HARNESS", "CpuJob", "ProcessorSharingCPU", "water_fill"]
