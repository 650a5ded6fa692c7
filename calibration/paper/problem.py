"""The fit's objective: simulate a candidate workload at C = 1 on both devices and score it.

Stage 3 of the fit (``fit.py``): ``load_devices`` reads the two paper scenarios (read only:
the generated files they include may be absent before the first fit), ``Problem.evaluate``
simulates a candidate, relabels statuses by the success construction and scores the figures
against the paper's bounds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from agbench.calibration.paper.figures import FigureKey, RunRow, figures
from agbench.calibration.paper.params import PRIOR, SEED, build_params
from agbench.calibration.paper.success import (
    category_difficulty,
    category_success_targets,
    choose_solved,
    latent,
)
from agbench.calibration.paper.targets import ARCHS, DEVICES, TARGETS, Target
from agbench.records import TaskRun
from agbench.sim import simulate
from agbench.sim.profiles import Profile
from agbench.sim.scenario import Scenario, load_scenario
from agbench.sim.workloads.synthetic import SyntheticParams, synthetic_workload
from agbench.status import Status


@dataclass
class Devices:
    """The two paper scenarios' profiles, with the fit's overlays held in memory."""

    scenarios: dict[str, Scenario]
    cache_hit_p: float | None = None
    exposure_p: dict[str, dict[str, float]] = field(default_factory=dict)
    redelegate_p: float | None = None

    def profile(self, scenario: str) -> Profile:
        p = self.scenarios[scenario].profile
        if self.cache_hit_p is not None:
            p.cloud.cache_hit_p = self.cache_hit_p
        if self.redelegate_p is not None:
            p.behaviour.hcl_redelegate_p = self.redelegate_p
        if scenario in self.exposure_p:
            p.behaviour.exposure_p = dict(self.exposure_p[scenario])
        return p


def load_devices() -> Devices:
    """Both paper scenarios, read only. Before the first fit the generated files they include
    (the fitted overlays and workload) may be missing: they are then skipped, not created; the
    fit replaces what they would set (cache hit rate, exposure, workload) in memory anyway."""
    return Devices({name: load_scenario(name, missing_generated_ok=True) for name in DEVICES})


def simulate_c1(
    devices: Devices, params: SyntheticParams, archs: Iterable[str] = ARCHS, seed: int = SEED
) -> dict[tuple[str, str], list[TaskRun]]:
    workload = synthetic_workload(params, seed)
    out: dict[tuple[str, str], list[TaskRun]] = {}
    for scenario in DEVICES:
        profile = devices.profile(scenario)
        for arch in archs:
            result = simulate(profile, arch, 1, seed, workload, device=DEVICES[scenario])
            out[(scenario, arch)] = result.task_runs()
    return out


def infra_failures(raw: dict[tuple[str, str], list[TaskRun]]) -> dict[str, dict[str, set[str]]]:
    """Tasks that fail whatever their intrinsic outcome (simulated with everything solvable)."""
    out: dict[str, dict[str, set[str]]] = {}
    for (scenario, arch), runs in raw.items():
        out.setdefault(scenario, {})[arch] = {r.task for r in runs if r.status != Status.SUCCESS}
    return out


def relabel(
    raw: dict[tuple[str, str], list[TaskRun]], solved: dict[tuple[str, str], int], seed: int
) -> dict[tuple[str, str], list[RunRow]]:
    """Rows with the statuses the fitted ``success_p`` gives (timing does not depend on it)."""
    ranked: dict[str, list[str]] = {}
    for runs in raw.values():
        for r in runs:
            ranked.setdefault(r.category, [])
            if r.task not in ranked[r.category]:
                ranked[r.category].append(r.task)
    easiest = {
        (c, a): set(sorted(ts, key=lambda t: latent(seed, t))[: solved[(c, a)]])
        for c, ts in ranked.items()
        for a in ARCHS
    }
    out: dict[tuple[str, str], list[RunRow]] = {}
    for (scenario, arch), runs in raw.items():
        rows = []
        for r in runs:
            status = r.status
            if status == Status.SUCCESS and r.task not in easiest[(r.category, arch)]:
                status = Status.VERIFICATION_FAILED
            rows.append(RunRow.of(r, status))
        out[(scenario, arch)] = rows
    return out


# ---- the objective -----------------------------------------------------------------------

# Figures the Nelder-Mead stage fits (exposure and the cache hit rate have their own 1-D fits).
TIMING_METRICS = (
    "success",
    "completion_s",
    "suite_s",
    "local_wait_s_per_task",
    "cloud_calls",
    "cloud_output_vs_co",
    "cloud_input_vs_co",
    "category_success",
)
SOFT_WEIGHT = 0.3


def key_of(t: Target) -> FigureKey:
    return (t.metric, t.device, t.arch, t.category)


def scaled_error(t: Target, value: float) -> float:
    """The error in units of the figure's bound (1.0 = exactly at the bound)."""
    if not math.isfinite(value):
        return 10.0
    if t.metric == "cloud_input_vs_co":  # published only as "below CO's"
        return max(0.0, value - 0.95) / 0.05
    if t.bound == "count" or t.metric == "category_success":
        return float((value - t.value) / max(t.tolerance, 1.0))
    tol = t.tolerance if t.tolerance > 0 else 0.1
    return float((value / t.value - 1.0) / tol)


def objective(figs: dict[FigureKey, float], metrics: Iterable[str] = TIMING_METRICS) -> float:
    wanted = set(metrics)
    total = 0.0
    for t in TARGETS:
        if t.metric not in wanted:
            continue
        e = scaled_error(t, figs.get(key_of(t), float("nan")))
        weight = SOFT_WEIGHT if t.bound == "soft" else 1.0
        # beyond its bound a hard figure costs steeply more: the bounds are what must hold
        total += weight * e * e + (0.0 if t.bound == "soft" else 30.0 * max(0.0, abs(e) - 0.9) ** 2)
    return total


@dataclass
class Evaluation:
    values: dict[str, float]
    solved: dict[tuple[str, str], int]
    figures: dict[FigureKey, float]
    loss: float
    raw: dict[tuple[str, str], list[TaskRun]] = field(default_factory=dict, repr=False)


@dataclass
class Problem:
    """Everything the objective needs that does not change between candidates."""

    devices: Devices
    prior: SyntheticParams
    counts: dict[str, int]
    wanted: dict[tuple[str, str], int]
    difficulty: dict[str, float]
    tasks_by_category: dict[str, list[str]]
    seed: int = SEED
    evaluations: int = 0

    raw: dict[tuple[str, str], list[TaskRun]] = field(default_factory=dict)  # the last kept simulation

    def evaluate(self, values: dict[str, float], archs: tuple[str, ...] = ARCHS) -> Evaluation:
        """Simulate ``archs`` with ``values``; the other architectures' runs come from the
        last kept simulation (``keep``), which does not depend on the values being tuned."""
        self.evaluations += 1
        params = build_params(values, self.prior, self.difficulty)
        raw = {**self.raw, **simulate_c1(self.devices, params, archs, seed=self.seed)}
        solved = choose_solved(self.tasks_by_category, infra_failures(raw), self.wanted, self.seed)
        figs = figures(relabel(raw, solved, self.seed))
        return Evaluation(values, solved, figs, objective(figs), raw)

    def keep(self, evaluation: Evaluation) -> None:
        self.raw = dict(evaluation.raw)


def make_problem(devices: Devices, seed: int = SEED) -> Problem:
    prior = SyntheticParams.load(PRIOR)
    counts = {c: cp.count for c, cp in prior.categories.items()}
    wanted = category_success_targets(counts)
    tasks: dict[str, list[str]] = {}
    for c, n in counts.items():
        tasks[c] = [f"{c}-{i + 1:02d}" for i in range(n)]  # synthetic.synthetic_tasks' ids
    return Problem(devices, prior, counts, wanted, category_difficulty(counts, wanted), tasks, seed)


__all__ = [
    "TIMING_METRICS",
    "Devices",
    "Evaluation",
    "Problem",
    "infra_failures",
    "key_of",
    "load_devices",
    "make_problem",
    "objective",
    "relabel",
    "scaled_error",
    "simulate_c1",
]
