"""Scale-out: many configurations over local processes or a Ray cluster, same results either way.

A *job* is one (scenario, architecture, concurrency, seed) simulation; it carries everything
it needs (the resolved scenario and workload), so the same job gives the same records in this
process, in a worker process or on a Ray node. Results come back in job order.

Ray is optional (``pip install agbench[ray]``); ``--ray local`` starts a cluster on this
machine, ``--ray ADDRESS`` joins one.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agbench.config import Architecture
from agbench.sim import ray_cluster
from agbench.sim.engine import SimResult, simulate
from agbench.sim.metrics_out import write_run
from agbench.sim.scenario import Scenario, load_scenario
from agbench.sim.workloads.base import Workload


@dataclass
class SimJob:
    scenario: Scenario
    workload: Workload
    arch: str
    concurrency: int
    seed: int
    run_id: str = "sim"
    jitter: int | None = None  # the timing-jitter stream (sim/agents/timing_jitter.py)

    def run(self) -> SimResult:
        return simulate(
            self.scenario.profile,
            self.arch,
            self.concurrency,
            self.seed,
            self.workload,
            run_id=self.run_id,
            jitter=self.jitter,
        )


def _run_job(job: SimJob) -> SimResult:
    return job.run()


def run_jobs(jobs: Sequence[SimJob], *, workers: int = 1, ray: str | None = None) -> list[SimResult]:
    """Run jobs in order here (workers=1), in a process pool, or on Ray; results in job order."""
    if ray is not None:
        return _run_on_ray(jobs, ray)
    if workers <= 1 or len(jobs) <= 1:
        return [job.run() for job in jobs]
    with ProcessPoolExecutor(max_workers=min(workers, len(jobs))) as pool:
        return list(pool.map(_run_job, jobs))


def _run_on_ray(jobs: Sequence[SimJob], address: str) -> list[SimResult]:
    ray_mod = ray_cluster.connect(address)
    remote = ray_mod.remote(_run_job)
    return list(ray_mod.get([remote.remote(job) for job in jobs]))


def matrix_jobs(
    scenario: Scenario,
    workload: Workload,
    archs: Sequence[Architecture],
    concurrency: Sequence[int],
    seed: int,
    run_id: str = "sim",
    jitter: int | None = None,
) -> list[SimJob]:
    return [SimJob(scenario, workload, a.value, c, seed, run_id, jitter) for a in archs for c in concurrency]


def default_out_dir(prefix: str = "sim") -> Path:
    return Path("runs") / f"{prefix}-{datetime.now(UTC).strftime('%Y%m%d-%H%M%S-%f')}"


def sweep(
    scenarios: Sequence[str | Path | Scenario],
    seeds: Sequence[int] = (0,),
    *,
    archs: Sequence[Architecture] | None = None,
    concurrency: Sequence[int] | None = None,
    out_root: Path | None = None,
    ray: str | None = None,
    workers: int | None = None,
    limit: int | None = None,
) -> list[Path]:
    """A grid of scenarios x seeds x architectures x concurrency; one run directory per
    (scenario, seed), all jobs spread over processes (default: one per core) or Ray."""
    root = out_root or default_out_dir("sweep")
    plans: list[tuple[Scenario, int, list[SimJob]]] = []
    for item in scenarios:
        sc = item if isinstance(item, Scenario) else load_scenario(item)
        for seed in seeds:
            wl = sc.workload(seed=seed, limit=limit)
            jobs = matrix_jobs(sc, wl, archs or sc.archs, concurrency or sc.concurrency, seed)
            plans.append((sc, seed, jobs))
    flat = [job for _, _, jobs in plans for job in jobs]
    results = run_jobs(flat, workers=workers or os.cpu_count() or 1, ray=ray)
    out: list[Path] = []
    i = 0
    for sc, seed, jobs in plans:
        part = results[i : i + len(jobs)]
        i += len(jobs)
        run_dir = root / f"{sc.name}-seed{seed}"
        write_run(run_dir, sc, part, jobs[0].workload.agent_kind if jobs else "sim", seed)
        out.append(run_dir)
    return out


def result_fingerprint(results: Sequence[SimResult]) -> list[tuple[Any, ...]]:
    """A comparable digest of results (tests: local processes and Ray must agree)."""
    return [
        (
            r.architecture,
            r.concurrency,
            r.seed,
            round(r.suite_wall_s, 9),
            len(r.records),
            tuple((t.task, t.status, round(t.t_end, 9)) for t in r.task_runs()),
        )
        for r in results
    ]


__all__ = ["SimJob", "default_out_dir", "matrix_jobs", "result_fingerprint", "run_jobs", "sweep"]
