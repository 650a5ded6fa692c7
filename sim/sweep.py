"""Scale-out: many configurations over local processes or a Ray cluster, same results either way.

A *job* is one (scenario, architecture, concurrency, seed) simulation; it carries everything
it needs (the resolved scenario and workload), so the same job gives the same records in this
process, in a worker process or on a Ray node. Results come back in job order.

The jobs of one simulated sweep share servers the way a live sweep does (kept_servers.py): a
*chain* is the configurations that find one another's servers running, run one after another
in the live sweep's order, each from what the last left; chains are what run in parallel.
``fresh_servers=True`` gives every configuration servers of its own, started empty.

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
from agbench.sim.entities.server_state import ServerState
from agbench.sim.kept_servers import KeptServers, server_chains, servers_used, sweep_order
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

    def run(self, carried: dict[str, ServerState] | None = None, keep_states: bool = False) -> SimResult:
        return simulate(
            self.scenario.profile,
            self.arch,
            self.concurrency,
            self.seed,
            self.workload,
            run_id=self.run_id,
            jitter=self.jitter,
            carried=carried,
            keep_states=keep_states,
        )

    def servers(self) -> dict[str, object]:
        """The settings a live sweep would run this configuration's servers with."""
        return servers_used(self.scenario.profile, self.arch, self.concurrency)

    def sweep_key(self) -> tuple[Any, ...]:
        """Jobs with equal keys are one simulated sweep (one scenario variant, seed and draw)."""
        return (id(self.scenario), id(self.workload), self.seed, self.run_id, self.jitter)


@dataclass
class SimChain:
    """Configurations of one sweep that run on servers they share, in the live sweep's order:
    each starts from what the previous one on the same server left."""

    jobs: list[SimJob]

    def run(self) -> list[SimResult]:
        kept = KeptServers()
        results = []
        for job in self.jobs:
            servers = job.servers()
            result = job.run(kept.carried(servers), keep_states=len(self.jobs) > 1)
            kept.keep(servers, result.server_states)
            result.server_states = {}  # handed on here; not shipped back with the records
            results.append(result)
        return results


def chains_of(jobs: Sequence[SimJob], fresh_servers: bool = False) -> list[tuple[list[int], SimChain]]:
    """The jobs as chains, each with the positions of its jobs in ``jobs``."""
    if fresh_servers:
        return [([i], SimChain([job])) for i, job in enumerate(jobs)]
    sweeps: dict[tuple[Any, ...], list[int]] = {}
    for i, job in enumerate(jobs):
        sweeps.setdefault(job.sweep_key(), []).append(i)
    out = []
    for members in sweeps.values():
        ordered = [members[k] for k in sweep_order([(jobs[i].arch, jobs[i].concurrency) for i in members])]
        for chain in server_chains([jobs[i].servers() for i in ordered]):
            positions = [ordered[k] for k in chain]
            out.append((positions, SimChain([jobs[i] for i in positions])))
    return out


def _run_chain(chain: SimChain) -> list[SimResult]:
    return chain.run()


def run_jobs(
    jobs: Sequence[SimJob], *, workers: int = 1, ray: str | None = None, fresh_servers: bool = False
) -> list[SimResult]:
    """Run jobs here (workers=1), in a process pool, or on Ray, chain by chain (each chain's
    configurations in the live sweep's order, the chains in parallel); results in job order."""
    chains = chains_of(jobs, fresh_servers)
    if ray is not None:
        done = _run_on_ray([c for _, c in chains], ray)
    elif workers <= 1 or len(chains) <= 1:
        done = [c.run() for _, c in chains]
    else:
        with ProcessPoolExecutor(max_workers=min(workers, len(chains))) as pool:
            done = list(pool.map(_run_chain, [c for _, c in chains]))
    results: list[SimResult | None] = [None] * len(jobs)
    for (positions, _), chain_results in zip(chains, done, strict=True):
        for i, result in zip(positions, chain_results, strict=True):
            results[i] = result
    return [r for r in results if r is not None]


def _run_on_ray(chains: Sequence[SimChain], address: str) -> list[list[SimResult]]:
    ray_mod = ray_cluster.connect(address)
    remote = ray_mod.remote(_run_chain)
    return list(ray_mod.get([remote.remote(chain) for chain in chains]))


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
    fresh_servers: bool = False,
) -> list[Path]:
    """A grid of scenarios x seeds x architectures x concurrency; one run directory per
    (scenario, seed), all chains spread over processes (default: one per core) or Ray."""
    root = out_root or default_out_dir("sweep")
    plans: list[tuple[Scenario, int, list[SimJob]]] = []
    for item in scenarios:
        sc = item if isinstance(item, Scenario) else load_scenario(item)
        for seed in seeds:
            wl = sc.workload(seed=seed, limit=limit)
            jobs = matrix_jobs(sc, wl, archs or sc.archs, concurrency or sc.concurrency, seed)
            plans.append((sc, seed, jobs))
    flat = [job for _, _, jobs in plans for job in jobs]
    results = run_jobs(flat, workers=workers or os.cpu_count() or 1, ray=ray, fresh_servers=fresh_servers)
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


__all__ = [
    "SimChain",
    "SimJob",
    "chains_of",
    "default_out_dir",
    "matrix_jobs",
    "result_fingerprint",
    "run_jobs",
    "sweep",
]
