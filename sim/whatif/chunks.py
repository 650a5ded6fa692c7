"""Evaluating a what-if search's points: here, in a process pool, or as Ray tasks.

The points are cut into chunks (one task each); each chunk carries the points and the name of
their device scenario, while the device profiles and workloads travel once (Ray: one object in
the store). Results come back in point order and are the same however they were computed. The
search (search.py) and the front's redraws (intervals.py) both run their points through here.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from typing import Any

from agbench.sim import ray_cluster
from agbench.sim.profiles import Profile
from agbench.sim.whatif.evaluate import PointResult, evaluate_chunk
from agbench.sim.whatif.spec import Point
from agbench.sim.workloads.base import Workload


def split_chunks(items: list[Any], n: int) -> list[list[Any]]:
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
    jitter: int | None = None,
) -> list[PointResult]:
    """Evaluate the chunks here (workers=1), in a process pool, or as Ray tasks; point order
    kept. ``jitter``: the timing-jitter stream every point is simulated with (None: nominal)."""
    if ray is not None:
        return _on_ray(chunks, bases, workloads, seed, ray, jitter)
    if workers <= 1 or len(chunks) <= 1:
        return [r for chunk in chunks for r in evaluate_chunk(chunk, bases, workloads, seed, jitter)]
    with ProcessPoolExecutor(max_workers=min(workers, len(chunks))) as pool:
        run = partial(evaluate_chunk, bases=bases, workloads=workloads, seed=seed, jitter=jitter)
        return [r for part in pool.map(run, chunks) for r in part]


def _on_ray(
    chunks: Sequence[list[tuple[Point, str]]],
    bases: dict[str, Profile],
    workloads: dict[str, Workload],
    seed: int,
    address: str,
    jitter: int | None,
) -> list[PointResult]:
    ray_mod = ray_cluster.connect(address)
    remote = ray_mod.remote(evaluate_chunk)
    bases_ref, workloads_ref = ray_mod.put(bases), ray_mod.put(workloads)
    parts = ray_mod.get([remote.remote(chunk, bases_ref, workloads_ref, seed, jitter) for chunk in chunks])
    return [r for part in parts for r in part]


__all__ = ["run_chunks", "split_chunks"]
