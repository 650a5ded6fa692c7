"""``agbench whatif``: simulate every point of a spec, here, in local processes or on Ray.

The points are evaluated in chunks (chunks.py); results come back in point order and are the
same however they were computed: a point's simulation depends only on its profile, the
workload and the seed.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from agbench.errors import AgbenchError
from agbench.sim.profiles import Profile
from agbench.sim.scenario import load_scenario
from agbench.sim.whatif.chunks import run_chunks, split_chunks
from agbench.sim.whatif.intervals import front_intervals
from agbench.sim.whatif.pareto import pareto_front
from agbench.sim.whatif.result import WhatIfResult
from agbench.sim.whatif.spec import WhatIfSpec, load_spec
from agbench.sim.workloads.base import Workload


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
    pieces = split_chunks(items, (n_workers if ray is None else max(n_workers, 8)) * chunks_per_worker)
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


__all__ = ["result_fingerprint", "search"]
