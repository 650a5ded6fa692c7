"""agbench.sim: a SimPy model of a personal AI device running agent workloads.

Public entry points:

* ``run_matrix(scenario, ...)`` -> run directory: what ``agbench sim`` calls;
* ``simulate(profile, arch, concurrency, seed, workload)`` -> ``SimResult`` in memory, for
  calibration and validation;
* ``load_scenario(name_or_path)``, ``Profile`` (TOML profiles), ``SyntheticParams`` (tunable
  synthetic workload), ``replay_workload(trajectory_file)``, ``Roofline``.
"""

from __future__ import annotations

from pathlib import Path

from agbench.config import Architecture
from agbench.errors import AgbenchError
from agbench.sim.engine import SimResult, simulate, task_order
from agbench.sim.metrics_out import write_run
from agbench.sim.predictors.roofline import Roofline
from agbench.sim.profiles import Profile, ServerRates
from agbench.sim.scenario import Scenario, load_scenario, shipped_scenarios
from agbench.sim.sweep import default_out_dir, matrix_jobs, run_jobs, sweep
from agbench.sim.workloads import SyntheticParams, Workload, replay_workload, synthetic_workload
from agbench.store import copy_to_latest


def run_matrix(
    scenario: str | Path | Scenario,
    *,
    archs: list[Architecture] | None = None,
    concurrency: list[int] | None = None,
    seed: int = 0,
    out_dir: Path | None = None,
    ray: str | None = None,
    trajectories: Path | None = None,
    profile: Path | None = None,
    limit: int | None = None,
    workers: int = 1,
    extra_files: dict[str, str] | None = None,
    fresh_servers: bool = False,
) -> Path:
    """Simulate a scenario's architectures x concurrency and write one run directory.

    ``profile``: a (calibrated) profile TOML laid over the scenario's own tables;
    ``trajectories``: replay this trajectory file instead of the scenario's workload.
    ``extra_files``: name -> text written into the run directory before its reports (the
    intervals of ``agbench sim --draws``, which the report reads). The configurations share
    servers as a live sweep with the scenario's settings would (sim/kept_servers.py);
    ``fresh_servers``: each on servers of its own, started empty. Returns the run directory
    (default ``runs/sim-<timestamp>``; also copied to runs/latest).
    """
    sc = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
    if profile is not None:
        sc = sc.with_profile(Path(profile))
    if limit is not None and limit < 1:
        raise AgbenchError(f"--limit must be at least 1, got {limit}")
    workload = sc.workload(seed=seed, trajectories=trajectories, limit=limit)
    if not workload.tasks:
        raise AgbenchError(f"scenario {sc.name}: the workload has no task")
    target = out_dir or default_out_dir("sim")
    if (target / "run.json").exists():
        raise AgbenchError(f"{target} already holds a run; choose another --out")
    jobs = matrix_jobs(sc, workload, archs or sc.archs, concurrency or sc.concurrency, seed, target.name)
    results = run_jobs(jobs, workers=workers, ray=ray, fresh_servers=fresh_servers)
    write_run(target, sc, results, workload.agent_kind, seed, extra_files=extra_files)
    if out_dir is None:
        copy_to_latest(target, target.parent)
    return target


__all__ = [
    "Profile",
    "Roofline",
    "Scenario",
    "ServerRates",
    "SimResult",
    "SyntheticParams",
    "Workload",
    "load_scenario",
    "replay_workload",
    "run_matrix",
    "shipped_scenarios",
    "simulate",
    "sweep",
    "synthetic_workload",
    "task_order",
]
