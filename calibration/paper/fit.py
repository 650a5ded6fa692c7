"""Fit the paper scenarios' synthetic workload to the paper's concurrency-1 figures.

``python -m agbench.calibration.paper.fit`` (a few minutes on one core) writes

* ``sim/scenarios/shared/paper-workload.toml``: the 60-task synthetic workload both paper
  scenarios run (one workload: the agents' behaviour does not depend on the device; the two
  devices differ only through the simulated hardware);
* ``sim/scenarios/shared/paper-fit-<device>.toml``: the few assumption parameters that are
  fitted per device (cloud exposure probabilities) or once (the cloud prompt-cache hit rate),
  with the goodness of fit in ``[fit.paper_c1]``.

How (deterministic: no random restarts, a fixed simulator seed):

1. **Success by construction.** The simulator solves a task when its latent difficulty ``u``
   (shared by the architectures) is below the category's ``success_p``. For every (category,
   architecture) the fit picks how many of the category's easiest tasks are intrinsically
   solved so that, after the simulated infrastructure failures (context errors, timeouts,
   abandoned delegations, which do not depend on ``success_p``), the count matches the
   paper's per-category figure where it publishes one, and otherwise the architecture's
   remaining successes spread over the other categories by size.
2. **Timing by Nelder-Mead** over a handful of behaviour parameters (``PARAMS``: turns per
   architecture, tokens per turn, tool time, how much longer the hard categories run,
   delegation and consultation rates), minimising squared errors scaled by each figure's
   bound (mean completion on commonly solved tasks, LO/CO suite time) plus the soft figures
   (HCL's local wait on the Max+ 395, HCL's cloud calls, HLL's cloud tokens vs CO's).
3. **One-dimensional fits** of the cloud prompt-cache hit rate (CO's 2.1 % uncached input) and
   of each device's exposure probabilities (the published exposure ratios).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import tomli_w
from scipy.optimize import minimize

from agbench.calibration.paper.figures import FigureKey, RunRow, figures
from agbench.calibration.paper.targets import ARCHS, CATEGORY_SUCCESS, DEVICES, TARGETS, Target, targets
from agbench.errors import AgbenchError
from agbench.records import TaskRun
from agbench.sim import Workload, load_scenario, simulate
from agbench.sim.profiles import Profile
from agbench.sim.scenario import SCENARIO_DIR, Scenario
from agbench.sim.workloads.synthetic import ArchParams, CategoryParams, SyntheticParams, synthetic_workload

PRIOR = SCENARIO_DIR / "shared" / "workload-paper.toml"  # the simulator's starting points
WORKLOAD_OUT = SCENARIO_DIR / "shared" / "paper-workload.toml"
SEED = 0  # the paper scenarios' seed: task order and the synthetic draws


def overlay_path(scenario: str) -> Path:
    return Path(SCENARIO_DIR) / "shared" / f"paper-fit-{DEVICES[scenario]}.toml"


# ---- the fitted behaviour parameters ----------------------------------------------------


@dataclass(frozen=True)
class FitParam:
    """One tuned parameter: its start (the prior's value), range, transform and meaning."""

    name: str
    start: float
    low: float
    high: float
    why: str
    logit: bool = False  # probabilities: fitted on the logit scale; others on the log scale

    def to_x(self, value: float) -> float:
        v = min(max(value, self.low), self.high)
        return math.log(v / (1 - v)) if self.logit else math.log(v)

    def from_x(self, x: float) -> float:
        v = 1 / (1 + math.exp(-x)) if self.logit else math.exp(x)
        return min(max(v, self.low), self.high)


PARAMS: tuple[FitParam, ...] = (
    # Starting points: the simulator's priors (shared/workload-paper.toml) moved by earlier
    # exploratory runs of this fit; the fit is deterministic from them.
    FitParam("tool_wall_median_s", 4.892, 0.3, 120.0, "median tool wall time, cloud-led agents (CO, HCL)"),
    FitParam("tool_factor_LO", 2.314, 0.1, 50.0, "LO's tool time relative to the cloud agents'"),
    FitParam("tool_factor_HLL", 2.402, 0.1, 50.0, "HLL's tool time relative to the cloud agents'"),
    FitParam("tool_sigma_LO", 1.24, 0.3, 3.0, "lognormal shape of LO's tool times (commands that hang)"),
    FitParam("result_factor_LO", 1.0, 0.1, 5.0, "LO's tool-result tokens relative to the others'"),
    FitParam("tool_wall_sigma", 1.24, 0.3, 2.5, "lognormal shape of tool wall time"),
    FitParam("tool_result_tokens_median", 497.7, 100.0, 6000.0, "median tool-result tokens"),
    FitParam("local_output_tokens", 544.3, 100.0, 4000.0, "median local output per turn (LO, HLL)"),
    FitParam("cloud_output_tokens", 388.7, 100.0, 6000.0, "median CO output per turn"),
    FitParam("hcl_output_tokens", 557.6, 100.0, 6000.0, "median HCL lead/sub output per turn"),
    FitParam("turns_sigma_LO", 1.275, 0.1, 2.0, "lognormal shape of LO's turns per task"),
    FitParam("turns_sigma_CO", 0.5848, 0.1, 2.0, "lognormal shape of CO's turns per task"),
    FitParam("turns_sigma_HCL", 0.6092, 0.1, 2.0, "lognormal shape of HCL's lead/sub turns"),
    FitParam("turns_sigma_HLL", 0.98, 0.1, 2.0, "lognormal shape of HLL's turns per task"),
    FitParam("turns_LO", 8.041, 2.0, 150.0, "median model turns of the LO agent"),
    FitParam("turns_CO", 6.218, 1.0, 150.0, "median model turns of the CO agent"),
    FitParam("turns_HCL", 8.307, 1.0, 150.0, "median model turns of HCL's cloud lead"),
    FitParam("turns_HLL", 12.53, 2.0, 150.0, "median model turns of HLL's local lead"),
    FitParam("sub_turns_HCL", 8.237, 1.0, 150.0, "median turns of one HCL local sub-agent"),
    FitParam("delegate_p", 0.3838, 0.02, 0.98, "P(an HCL lead turn delegates)", logit=True),
    FitParam("consult_p", 0.2296, 0.01, 0.9, "P(an HLL lead turn consults the cloud)", logit=True),
    FitParam("hard_turns", 1.401, 0.05, 1000.0, "turns x this^difficulty on hard categories"),
    FitParam("hard_tools", 15.53, 0.05, 1000.0, "tool time x this^difficulty on hard categories"),
    FitParam("consult_output_tokens", 1956, 50.0, 20000.0, "cloud output of one HLL consultation"),
)
# hard_* enter as log(value) x difficulty: the log scale keeps them positive (harder
# categories are never shorter), and 1.0 is "no category effect".


def values_of(x: Iterable[float]) -> dict[str, float]:
    return {p.name: p.from_x(v) for p, v in zip(PARAMS, x, strict=True)}


def start_values() -> dict[str, float]:
    return {p.name: p.start for p in PARAMS}


# ---- success by construction --------------------------------------------------------------


def latent(seed: int, task: str) -> float:
    """The simulator's latent difficulty of a task (sim/workloads/synthetic.py, same formula)."""
    return random.Random(f"{seed}|{task}|latent").random()


def arch_success_target(arch: str) -> int:
    """One count for both devices: the midpoint of the two published counts, rounded up.

    The workload is shared by the devices, so their C = 1 success counts differ only through
    infrastructure failures; the midpoint is within +-2 of both published counts whenever they
    differ by at most 4 (LO 35/31 -> 33, CO 50/47 -> 49, HCL 39, HLL 44)."""
    counts: list[float] = [t.value for t in targets("success") if t.arch == arch]
    return math.ceil(sum(counts) / len(counts))


# LO: the paper breaks down 27 of the RTX 5090's 35 LO successes (8 left for office,
# multimedia and scientific) and 21 of the Max+ 395's 31 (terminal 5; with calculation 5 and
# system 2 as on the RTX 5090, 3 left for office/multimedia/scientific). The shared workload
# targets 33: the Max+ 395 breakdown (office/multimedia/scientific 3 in all, terminal 5) plus
# the two extra successes where the paper's figures put most of LO's strength, local files and
# retrieval (ASSUMPTION; these per-category figures are reported as soft targets).
LO_SUCCESS = {
    "local_files": 10,
    "retrieval": 8,
    "calculation": 5,
    "system": 2,
    "terminal": 5,
    "office": 1,
    "multimedia": 1,
    "scientific": 1,
}


def category_success_targets(counts: dict[str, int]) -> dict[tuple[str, str], int]:
    """(category, arch) -> intended successes at C = 1.

    Published per-category figures first (the RTX 5090's where both devices have one: it has
    the fuller breakdown); the architecture's remaining successes spread over its other
    categories in proportion to their size (largest remainder, ties by name)."""
    out: dict[tuple[str, str], int] = {}
    for arch in ARCHS:
        known = {
            cat: by_dev.get("paper-rtx5090", next(iter(by_dev.values())))
            for (cat, a), by_dev in CATEGORY_SUCCESS.items()
            if a == arch
        }
        out.update({(c, arch): n for c, n in known.items()})
        rest = {c: n for c, n in counts.items() if c not in known}
        left = arch_success_target(arch) - sum(known.values())
        size = sum(rest.values())
        shares = {c: left * n / size for c, n in rest.items()}
        alloc = {c: min(rest[c], int(s)) for c, s in shares.items()}
        order = sorted(rest, key=lambda c: (-(shares[c] - int(shares[c])), c))
        i = 0
        while sum(alloc.values()) < left and any(alloc[c] < rest[c] for c in rest):
            c = order[i % len(order)]
            if alloc[c] < rest[c]:
                alloc[c] += 1
            i += 1
        out.update({(c, arch): n for c, n in alloc.items()})
    if set(LO_SUCCESS) == set(counts) and sum(LO_SUCCESS.values()) == arch_success_target("LO"):
        out.update({(c, "LO"): n for c, n in LO_SUCCESS.items()})
    return out


def category_difficulty(counts: dict[str, int], wanted: dict[tuple[str, str], int]) -> dict[str, float]:
    """1 - the share of the category's tasks the weakest architecture solves, centred on the
    task-weighted mean (so the hardness factors stretch hard categories and shrink easy ones).

    The weakest architecture's share is the share of the category in the "solved by all four"
    set, so this is what separates the paper's mean completion on commonly solved tasks from
    its suite times (CO: 2.07 min per solved-by-all task, 4.12 h / 60 = 4.1 min per task)."""
    raw = {c: 1 - min(wanted[(c, a)] for a in ARCHS) / n for c, n in counts.items()}
    mean = sum(raw[c] * n for c, n in counts.items()) / sum(counts.values())
    return {c: raw[c] - mean for c in counts}


def choose_solved(
    tasks_by_category: dict[str, list[str]],
    infra_failed: dict[str, dict[str, set[str]]],  # device -> arch -> tasks lost to the infrastructure
    wanted: dict[tuple[str, str], int],
    seed: int,
) -> dict[tuple[str, str], int]:
    """(category, arch) -> how many of the category's easiest tasks are intrinsically solved,
    so that the survivors of the infrastructure failures match ``wanted`` on both devices.

    Per category first; then, where a category cannot make up its losses (it has no unsolved
    task left), the architecture's shortfall moves to the categories that still can, so its
    total matches (the published totals are the bounded figures)."""
    out: dict[tuple[str, str], int] = {}
    ranked = {cat: sorted(tasks, key=lambda t: latent(seed, t)) for cat, tasks in tasks_by_category.items()}

    def survivors(cat: str, arch: str, k: int) -> float:
        """Mean over the devices of the category's solved tasks that survive."""
        counts = [
            sum(1 for t in ranked[cat][:k] if t not in by_arch.get(arch, set()))
            for by_arch in infra_failed.values()
        ]
        return sum(counts) / len(counts)

    for cat in ranked:
        for arch in ARCHS:
            goal = wanted[(cat, arch)]
            best_k, best_err = 0, math.inf
            for k in range(len(ranked[cat]) + 1):
                err = 0.0
                for by_arch in infra_failed.values():
                    lost = by_arch.get(arch, set())
                    err += (sum(1 for t in ranked[cat][:k] if t not in lost) - goal) ** 2
                if err < best_err - 1e-9:
                    best_k, best_err = k, err
            out[(cat, arch)] = best_k
    for arch in ARCHS:
        total = sum(wanted[(c, arch)] for c in ranked)
        for _ in range(len(tasks_by_category) * 12):
            now = sum(survivors(c, arch, out[(c, arch)]) for c in ranked)
            step = 1 if now < total - 0.5 else (-1 if now > total + 0.5 else 0)
            if step == 0:
                break
            options = []
            for c in sorted(ranked):
                k = out[(c, arch)] + step
                if 0 <= k <= len(ranked[c]):
                    gain = step * (survivors(c, arch, k) - survivors(c, arch, out[(c, arch)]))
                    if gain > 0:
                        # prefer the category furthest from its intended count in that direction
                        off = step * (wanted[(c, arch)] - survivors(c, arch, out[(c, arch)]))
                        options.append((-gain, -off, c))
            if not options:
                break
            out[(min(options)[2], arch)] += step
    return out


def success_p_for(tasks: list[str], k: int, seed: int) -> float:
    """A ``success_p`` under which exactly the ``k`` easiest of ``tasks`` are solved."""
    us = sorted(latent(seed, t) for t in tasks)
    if k <= 0:
        return 0.0
    if k >= len(us):
        return 1.0
    return round((us[k - 1] + us[k]) / 2, 6)


# ---- candidate workloads -----------------------------------------------------------------


def build_params(
    v: dict[str, float],
    prior: SyntheticParams,
    difficulty: dict[str, float],
    success: dict[tuple[str, str], float] | None = None,
) -> SyntheticParams:
    """The prior's workload with the fitted values set (``success`` None: everything solvable)."""
    cats: dict[str, CategoryParams] = {}
    for name, cp in prior.categories.items():
        d = difficulty[name]
        cats[name] = replace(
            cp,
            turns_scale=round(cp.turns_scale * v["hard_turns"] ** d, 4),
            tool_wall_scale=round(cp.tool_wall_scale * v["hard_tools"] ** d, 4),
            success_p={a: (success[(name, a)] if success else 1.0) for a in ARCHS},
        )
    archs: dict[str, ArchParams] = {}
    shared: dict[str, Any] = {
        "tool_wall_median_s": round(v["tool_wall_median_s"], 3),
        "tool_result_tokens_median": round(v["tool_result_tokens_median"], 1),
        "tool_wall_sigma": round(v["tool_wall_sigma"], 4),
        "success_p": 1.0,
    }
    for arch in ARCHS:
        a = replace(prior.archs[arch], **shared)
        if arch in ("LO", "HLL"):
            a.tool_wall_median_s = round(v["tool_wall_median_s"] * v[f"tool_factor_{arch}"], 3)
        a.turns_sigma = round(v[f"turns_sigma_{arch}"], 4)
        if arch == "LO":
            a.tool_wall_sigma = round(v["tool_sigma_LO"], 4)
            a.tool_result_tokens_median = round(v["tool_result_tokens_median"] * v["result_factor_LO"], 1)
        a.turns_median = round(v[f"turns_{arch}"], 3)
        if arch in ("LO", "HLL"):
            a.output_tokens_median = round(v["local_output_tokens"], 1)
        elif arch == "CO":
            a.output_tokens_median = round(v["cloud_output_tokens"], 1)
        else:
            a.output_tokens_median = round(v["hcl_output_tokens"], 1)
            a.sub_turns_median = round(v["sub_turns_HCL"], 3)
            a.delegate_p = round(v["delegate_p"], 4)
        if arch == "HLL":
            a.consult_p = round(v["consult_p"], 4)
            a.consult_output_tokens = int(v["consult_output_tokens"])
        archs[arch] = a
    return SyntheticParams("paper-60-fitted", list(prior.difficulty_levels), cats, archs)


@dataclass
class Devices:
    """The two paper scenarios' profiles, with the fit's overlays held in memory."""

    scenarios: dict[str, Scenario]
    cache_hit_p: float | None = None
    exposure_p: dict[str, dict[str, float]] = field(default_factory=dict)

    def profile(self, scenario: str) -> Profile:
        p = self.scenarios[scenario].profile
        if self.cache_hit_p is not None:
            p.cloud.cache_hit_p = self.cache_hit_p
        if scenario in self.exposure_p:
            p.behaviour.exposure_p = dict(self.exposure_p[scenario])
        return p


def load_devices() -> Devices:
    for scenario in DEVICES:
        path = overlay_path(scenario)
        if not path.exists():  # first fit: the scenarios include a file only the fit writes
            path.write_text("# placeholder: written by python -m agbench.calibration.paper.fit\n")
    if not WORKLOAD_OUT.exists():
        WORKLOAD_OUT.write_text(PRIOR.read_text())
    return Devices({name: load_scenario(name) for name in DEVICES})


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
        out.setdefault(scenario, {})[arch] = {r.task for r in runs if r.status != "success"}
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
            if status == "success" and r.task not in easiest[(r.category, arch)]:
                status = "verification_failed"
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


# Block coordinate descent: each block's parameters only change the architectures listed with
# it, so a block's candidates simulate just those (the rest stay as last simulated). The shared
# block moves every architecture and is simulated whole. Two passes over the blocks.
BLOCKS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    (
        "shared tools and hardness",
        ("tool_wall_median_s", "tool_wall_sigma", "tool_result_tokens_median", "hard_turns", "hard_tools"),
        ARCHS,
    ),
    ("CO", ("turns_sigma_CO", "turns_CO", "cloud_output_tokens"), ("CO",)),
    ("HCL", ("turns_sigma_HCL", "hcl_output_tokens", "turns_HCL", "sub_turns_HCL", "delegate_p"), ("HCL",)),
    (
        "LO",
        (
            "turns_sigma_LO",
            "local_output_tokens",
            "turns_LO",
            "tool_factor_LO",
            "tool_sigma_LO",
            "result_factor_LO",
        ),
        ("LO", "HLL"),
    ),
    (
        "HLL",
        ("turns_sigma_HLL", "tool_factor_HLL", "turns_HLL", "consult_p", "consult_output_tokens"),
        ("HLL",),
    ),
)


def fit_block(
    problem: Problem,
    current: Evaluation,
    names: tuple[str, ...],
    archs: tuple[str, ...],
    maxfev: int,
    log: Callable[[str], None],
) -> Evaluation:
    """Nelder-Mead over ``names`` with every other parameter held at ``current``."""
    params = [p for p in PARAMS if p.name in names]
    best = [current]

    def f(x: np.ndarray) -> float:
        values = {**current.values, **{p.name: p.from_x(v) for p, v in zip(params, x, strict=True)}}
        ev = problem.evaluate(values, archs)
        if ev.loss < best[0].loss:
            best[0] = ev
            shown = " ".join(f"{p.name}={values[p.name]:.4g}" for p in params)
            log(f"  eval {problem.evaluations:4d}: loss {ev.loss:9.3f}  {shown}")
        return ev.loss

    x0 = np.array([p.to_x(current.values[p.name]) for p in params])
    # scipy's default simplex steps 5 % of each coordinate: nothing for a coordinate at 0
    # (log 1, logit 0.5). Step every coordinate by 0.25 instead (x 1.28 on the log scale).
    simplex = np.vstack([x0, x0 + 0.25 * np.eye(len(x0))])
    minimize(
        f,
        x0,
        method="Nelder-Mead",
        options={
            "maxfev": maxfev,
            "xatol": 1e-3,
            "fatol": 1e-3,
            "adaptive": True,
            "initial_simplex": simplex,
        },
    )
    return best[0]


def fit_timing(
    problem: Problem, start: dict[str, float], maxfev: int, log: Callable[[str], None], passes: int = 2
) -> Evaluation:
    """Block coordinate descent (``BLOCKS``), ``maxfev`` evaluations per block and pass."""
    current = problem.evaluate(start)
    problem.keep(current)
    log(f"  start: loss {current.loss:9.3f}")
    for n in range(passes):
        for name, names, archs in BLOCKS:
            log(f" pass {n + 1}, block {name}")
            current = fit_block(problem, current, names, archs, maxfev, log)
            problem.keep(current)
    final = problem.evaluate(current.values)  # everything simulated together, as shipped
    log(f"  final: loss {final.loss:9.3f}")
    return final


# ---- one-dimensional fits ----------------------------------------------------------------


def bisect_monotone(
    fn: Callable[[float], float], goal: float, low: float, high: float, steps: int = 14
) -> float:
    """The argument in [low, high] whose value is closest to ``goal`` for a non-decreasing
    step function ``fn`` (every candidate evaluated once; deterministic)."""
    tried: dict[float, float] = {}

    def val(p: float) -> float:
        p = round(p, 6)
        if p not in tried:
            tried[p] = fn(p)
        return tried[p]

    lo, hi = low, high
    for _ in range(steps):
        mid = (lo + hi) / 2
        if val(mid) < goal:
            lo = mid
        else:
            hi = mid
    val(lo)
    val(hi)
    return min(tried, key=lambda p: (abs(tried[p] - goal), p))


def fit_cache_hit(problem: Problem, params: SyntheticParams, log: Callable[[str], None]) -> float:
    """CO's uncached input share (2.1 % on the RTX 5090) fixes the provider cache hit rate."""
    goal = next(t for t in TARGETS if t.metric == "cloud_uncached_share" and t.arch == "CO").value
    workload = synthetic_workload(params, problem.seed)
    profile = problem.devices.profile("paper-rtx5090")

    def hit_to_cached(p: float) -> float:  # cached share grows with p: fit 1 - goal
        profile.cloud.cache_hit_p = p
        runs = simulate(profile, "CO", 1, problem.seed, workload).task_runs()
        prompt = sum(r.cloud_prompt_tokens for r in runs)
        return sum(r.cloud_cached_tokens for r in runs) / prompt if prompt else 0.0

    p = bisect_monotone(hit_to_cached, 1.0 - goal, 0.5, 1.0)
    log(f"  cloud cache_hit_p = {p:.4f}")
    return p


def _exposure_ratio(
    profile: Profile, arch: str, others: dict[str, float], workload: Workload, seed: int
) -> Callable[[float], float]:
    def ratio(p: float) -> float:
        profile.behaviour.exposure_p = {**others, arch: p}
        runs = simulate(profile, arch, 1, seed, workload).task_runs()
        total = sum(r.sensitive_total for r in runs)
        return sum(r.sensitive_exposed for r in runs) / total if total else 0.0

    return ratio


def fit_exposure(
    problem: Problem, params: SyntheticParams, log: Callable[[str], None]
) -> dict[str, dict[str, float]]:
    """Per device and architecture: the exposure probability whose realised ratio is closest
    to the published one (items are drawn at a task's first cloud input)."""
    workload = synthetic_workload(params, problem.seed)
    out: dict[str, dict[str, float]] = {}
    for scenario in DEVICES:
        profile = problem.devices.profile(scenario)
        out[scenario] = dict(profile.behaviour.exposure_p)
        for t in targets("exposure", scenario):
            ratio = _exposure_ratio(profile, t.arch, out[scenario], workload, problem.seed)
            out[scenario][t.arch] = bisect_monotone(ratio, t.value, 0.0, 1.0)
            log(f"  {scenario} exposure_p[{t.arch}] = {out[scenario][t.arch]:.4f}")
        profile.behaviour.exposure_p = out[scenario]
    return out


# ---- writing the scenario files ----------------------------------------------------------

WORKLOAD_NOTES: dict[str, str] = {
    "count": "tasks in the category (paper: local files 12, retrieval 10, calculation 8, system 2, terminal 12; office/multimedia/scientific share 16, ASSUMED 6/5/5)",
    "turns_scale": "prior category factor x hard_turns^difficulty (fitted)",
    "tool_wall_scale": "prior category factor x hard_tools^difficulty (fitted)",
    "tool_result_scale": "prior (sim/scenarios/shared/workload-paper.toml): ASSUMPTION",
    "output_scale": "prior: ASSUMPTION",
    "sensitive_items": "ASSUMPTION: the paper gives exposure ratios, not item counts",
    "turns_median": "fitted",
    "output_tokens_median": "fitted",
    "tool_wall_median_s": "fitted (CO and HCL share it; LO and HLL x their own fitted factor)",
    "tool_result_tokens_median": "fitted (shared by all architectures)",
    "sub_turns_median": "fitted",
    "delegate_p": "fitted",
    "consult_p": "fitted",
    "consult_output_tokens": "fitted",
    "success_p": "architecture default, unused: every category sets its own",
    "turns_sigma": "fitted (per architecture)",
    "output_tokens_sigma": "prior: ASSUMPTION",
    "tool_result_tokens_sigma": "prior: ASSUMPTION",
    "tool_wall_sigma": "fitted (LO its own; the others share one)",
    "tool_cpu_fraction": "prior: ASSUMPTION",
    "tools_per_turn": "prior: ASSUMPTION",
    "think_s": "prior: ASSUMPTION (harness time before each request)",
    "system_prompt_tokens": "prior: ASSUMPTION (Pi agent system prompt + tool schemas)",
    "instruction_tokens": "prior: ASSUMPTION",
    "sub_system_prompt_tokens": "prior: ASSUMPTION",
    "delegate_instruction_tokens": "prior: ASSUMPTION",
    "delegate_report_tokens": "prior: ASSUMPTION",
    "consult_prompt_tokens": "prior: ASSUMPTION",
}


def annotate(text: str, notes: dict[str, str], table_notes: dict[str, str] | None = None) -> str:
    """TOML text with a ``# why`` comment after each ``key = value`` line ``notes`` knows
    (tomli_w writes no comments; the issue asks for every assumption beside its value)."""
    out = []
    table = ""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            table = stripped.strip("[]")
            if table_notes and table in table_notes:
                out.append(f"# {table_notes[table]}")
            out.append(line)
            continue
        key = stripped.split("=", 1)[0].strip() if "=" in stripped else ""
        note = notes.get(key)
        out.append(f"{line}  # {note}" if note and not stripped.endswith(("[", "{")) else line)
    return "\n".join(out) + "\n"


def workload_text(params: SyntheticParams, result: Evaluation, wanted: dict[tuple[str, str], int]) -> str:
    data = params.to_dict()
    header = [
        "# GENERATED by `python -m agbench.calibration.paper.fit` -- do not edit by hand.",
        "# The paper's 60-task suite as a synthetic workload, shared by paper-rtx5090 and",
        "# paper-max395. Values marked 'fitted' were tuned so the C = 1 simulation of both devices",
        "# reproduces the paper's C = 1 figures (calibration/paper/targets.py); values marked",
        "# 'prior' keep the simulator's starting points (shared/workload-paper.toml) and their",
        "# reasoning. success_p per category: chosen so the simulated successes after context",
        "# errors, timeouts and abandoned delegations match these intended counts (paper where",
        "# published, else the architecture's remaining successes spread by category size):",
    ]
    for arch in ARCHS:
        parts = ", ".join(f"{c} {wanted[(c, arch)]}" for c in params.categories)
        header.append(f"#   {arch}: {parts}")
    header.append("# Fitted behaviour values (before rounding into the tables below):")
    for p in PARAMS:
        header.append(f"#   {p.name} = {result.values[p.name]:.4g}  ({p.why})")
    header.append("")
    return "\n".join(header) + "\n" + annotate(tomli_w.dumps(data), WORKLOAD_NOTES)


def overlay_text(
    scenario: str, cache_hit_p: float, exposure: dict[str, float], report: dict[str, Any]
) -> str:
    data = {
        "cloud": {"cache_hit_p": round(cache_hit_p, 4)},
        "behaviour": {"exposure_p": {a: round(p, 4) for a, p in exposure.items()}},
        "fit": {"paper_c1": report},
    }
    header = (
        f"# GENERATED by `python -m agbench.calibration.paper.fit` for {scenario}; included by\n"
        f"# {scenario}.toml. Assumption parameters fitted to the paper's C = 1 figures:\n"
        "# - cloud.cache_hit_p: the provider prompt cache hit rate that gives CO's 2.1 % uncached\n"
        "#   cloud input on the RTX 5090 (same value for both devices: one provider);\n"
        "# - behaviour.exposure_p: per architecture, the chance a task's sensitive item reaches\n"
        "#   the cloud once the task talks to it, fitted to this device's published exposure\n"
        "#   ratios (CO 76 %; HLL 22 % RTX 5090 / 13 % Max+ 395; HCL 71 % / 67 %).\n"
    )
    return header + tomli_w.dumps(data)


def fit_report(figs: dict[FigureKey, float], scenario: str) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    for t in TARGETS:
        if t.device != scenario:
            continue
        value = figs.get(key_of(t))
        if value is None or not math.isfinite(value):
            continue
        rows[t.label.replace(" ", "_").replace("[", "_").replace("]", "")] = {
            "paper": t.value,
            "sim": round(value, 4),
        }
    return rows


# ---- the whole fit -----------------------------------------------------------------------


@dataclass
class FitResult:
    params: SyntheticParams
    evaluation: Evaluation
    cache_hit_p: float
    exposure_p: dict[str, dict[str, float]]
    wanted: dict[tuple[str, str], int]
    seconds: float
    figures: dict[FigureKey, float] = field(default_factory=dict)  # the shipped C = 1 simulation


def fit(maxfev: int = 60, seed: int = SEED, log: Callable[[str], None] = print) -> FitResult:
    started = time.perf_counter()
    devices = load_devices()
    problem = make_problem(devices, seed)
    log(f"intended C = 1 successes per architecture: { {a: arch_success_target(a) for a in ARCHS} }")
    log(f"Nelder-Mead by blocks over {len(PARAMS)} behaviour parameters ({maxfev} evaluations per block)")
    best = fit_timing(problem, start_values(), maxfev, log)
    log("best values: " + ", ".join(f"{k}={v:.4g}" for k, v in best.values.items()))
    success = {
        (c, a): success_p_for(problem.tasks_by_category[c], best.solved[(c, a)], seed)
        for c in problem.counts
        for a in ARCHS
    }
    params = build_params(best.values, problem.prior, problem.difficulty, success)
    log("one-dimensional fits: cloud prompt-cache hit rate, exposure probabilities")
    devices.cache_hit_p = fit_cache_hit(problem, params, log)
    devices.exposure_p = fit_exposure(problem, params, log)
    final = simulate_c1(devices, params, seed=seed)
    final_figures = figures({k: [RunRow.of(r) for r in runs] for k, runs in final.items()})
    return FitResult(
        params,
        best,
        devices.cache_hit_p,
        devices.exposure_p,
        problem.wanted,
        time.perf_counter() - started,
        final_figures,
    )


def write(result: FitResult) -> list[Path]:
    WORKLOAD_OUT.write_text(workload_text(result.params, result.evaluation, result.wanted))
    written = [WORKLOAD_OUT]
    for scenario in DEVICES:
        path = overlay_path(scenario)
        report = {
            "method": "calibration/paper/fit.py: Nelder-Mead on the C = 1 simulation of both devices",
            "objective": round(result.evaluation.loss, 4),
            "figures": fit_report(result.figures or result.evaluation.figures, scenario),
        }
        path.write_text(overlay_text(scenario, result.cache_hit_p, result.exposure_p[scenario], report))
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m agbench.calibration.paper.fit", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--maxfev", type=int, default=60, help="evaluations per block and pass (default 60)")
    parser.add_argument("--dry-run", action="store_true", help="fit and print, write nothing")
    args = parser.parse_args(argv)
    try:
        result = fit(args.maxfev)
    except AgbenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"fitted in {result.seconds:.0f} s, objective {result.evaluation.loss:.3f}")
    if not args.dry_run:
        for path in write(result):
            print(f"wrote {path}")
    return 0


__all__ = [
    "PARAMS",
    "FitParam",
    "FitResult",
    "arch_success_target",
    "category_success_targets",
    "fit",
    "main",
    "write",
]

if __name__ == "__main__":
    raise SystemExit(main())
