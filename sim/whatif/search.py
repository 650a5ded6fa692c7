"""``agbench whatif``: simulate every point of a spec, here, in local processes or on Ray.

The points are cut into chunks (one task each); each chunk carries the points and the name of
their device scenario, while the device profiles and workloads travel once (Ray: one object in
the store). Results come back in point order and are the same however they were computed: a
point's simulation depends only on its profile, the workload and the seed.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agbench.errors import AgbenchError
from agbench.sim import ray_cluster
from agbench.sim.profiles import Profile
from agbench.sim.scenario import load_scenario
from agbench.sim.whatif.evaluate import PointResult, evaluate_chunk
from agbench.sim.whatif.pareto import pareto_front
from agbench.sim.whatif.spec import Point, WhatIfSpec, load_spec
from agbench.sim.workloads.base import Workload

if TYPE_CHECKING:
    from agbench.sim.whatif.intervals import FrontIntervals


@dataclass
class WhatIfResult:
    spec: WhatIfSpec
    results: list[PointResult]
    front: list[int]  # indices into results (simulated points only)
    wall_s: float = 0.0
    where: str = "local"
    devices: dict[str, str] = field(default_factory=dict)  # spec device -> scenario's device name
    intervals: FrontIntervals | None = None  # the front over draws (whatif/intervals.py)

    @property
    def simulated(self) -> list[PointResult]:
        return [r for r in self.results if not r.refused]

    @property
    def refused(self) -> list[PointResult]:
        return [r for r in self.results if r.refused]


def _chunks(items: list[Any], n: int) -> list[list[Any]]:
    size = max(1, -(-len(items) // n))
    return [items[i : i + size] for i in range(0, len(items), size)]


def run_chunks(
    chunks: Sequence[list[tuple[Point, str]]],
    bases: dict[str, Profile],
    workloads: dict[str, Workload],
    seed: int,
    *,
    workers: int = 1,
    ray: str | None = None,
) -> list[PointResult]:
    """Evaluate the chunks here (workers=1), in a process pool, or as Ray tasks; point order kept."""
    if ray is not None:
        return _on_ray(chunks, bases, workloads, seed, ray)
    if workers <= 1 or len(chunks) <= 1:
        return [r for chunk in chunks for r in evaluate_chunk(chunk, bases, workloads, seed)]
    with ProcessPoolExecutor(max_workers=min(workers, len(chunks))) as pool:
        parts = pool.map(partial(evaluate_chunk, bases=bases, workloads=workloads, seed=seed), chunks)
        return [r for part in parts for r in part]


def _on_ray(
    chunks: Sequence[list[tuple[Point, str]]],
    bases: dict[str, Profile],
    workloads: dict[str, Workload],
    seed: int,
    address: str,
) -> list[PointResult]:
    ray_mod = ray_cluster.connect(address)
    remote = ray_mod.remote(evaluate_chunk)
    bases_ref, workloads_ref = ray_mod.put(bases), ray_mod.put(workloads)
    parts = ray_mod.get([remote.remote(chunk, bases_ref, workloads_ref, seed) for chunk in chunks])
    return [r for part in parts for r in part]


def search(
    spec: WhatIfSpec | str | Path,
    *,
    workers: int | None = None,
    ray: str | None = None,
    limit: int | None = None,
    chunks_per_worker: int = 4,
    draws: int = 0,
) -> WhatIfResult:
    """Simulate the spec's points and find the Pareto front of the simulated ones.

    ``limit`` overrides the spec's tasks per point; ``workers`` defaults to one process per core;
    ``draws`` > 0 simulates the front again under that many draws of each device's uncertain
    inputs (whatif/intervals.py) for the objectives' ranges and whether the answer flips.
    """
    sp = spec if isinstance(spec, WhatIfSpec) else load_spec(spec)
    started = time.perf_counter()
    bases: dict[str, Profile] = {}
    workloads: dict[str, Workload] = {}
    devices: dict[str, str] = {}
    n = limit if limit is not None else sp.limit
    for name in sp.space["device"]:
        sc = load_scenario(name)
        bases[name] = sc.profile
        workloads[name] = sc.workload(seed=sp.seed, limit=n or None)
        devices[name] = sc.profile.device.name
        if not workloads[name].tasks:
            raise AgbenchError(f"{name}: the workload has no task")
    points = sp.points()
    items = [(p, p.device) for p in points]
    n_workers = workers or os.cpu_count() or 1
    pieces = _chunks(items, (n_workers if ray is None else max(n_workers, 8)) * chunks_per_worker)
    results = run_chunks(pieces, bases, workloads, sp.seed, workers=n_workers, ray=ray)
    simulated = [i for i, r in enumerate(results) if not r.refused]
    front_local = pareto_front([results[i].objectives for i in simulated], sp.objectives)
    out = WhatIfResult(
        spec=sp,
        results=results,
        front=[simulated[i] for i in front_local],
        where=f"ray:{ray}" if ray else (f"{n_workers} processes" if n_workers > 1 else "this process"),
        devices=devices,
    )
    if draws > 0:
        from agbench.sim.whatif.intervals import front_intervals  # it builds on this module

        out.intervals = front_intervals(out, draws, workers=n_workers, ray=ray, limit=limit)
    out.wall_s = time.perf_counter() - started
    return out


def result_fingerprint(result: WhatIfResult) -> list[tuple[Any, ...]]:
    """A comparable digest (tests: Ray and local runs must agree exactly)."""
    return [
        (
            r.point.label,
            r.refused,
            tuple(sorted(r.objectives.items())),
            r.bottleneck.name if r.bottleneck else "",
        )
        for r in result.results
    ] + [("front", *result.front)]


__all__ = ["WhatIfResult", "result_fingerprint", "run_chunks", "search"]
