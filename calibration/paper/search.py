"""The fit's searches: Nelder-Mead by blocks over the behaviour parameters, then 1-D fits.

Stage 4 of the fit (``fit.py``): ``fit_timing`` (block coordinate descent, deterministic),
``fit_cache_hit`` (the provider prompt-cache hit rate) and ``fit_exposure`` (each device's
exposure probabilities), each bisecting a monotone simulated figure.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.optimize import minimize

from agbench.calibration.paper.params import PARAMS
from agbench.calibration.paper.problem import Evaluation, Problem
from agbench.calibration.paper.targets import ARCHS, DEVICES, TARGETS, targets
from agbench.sim import Workload, simulate
from agbench.sim.profiles import Profile
from agbench.sim.workloads.synthetic import SyntheticParams, synthetic_workload

RESTART_STEP = 0.5  # a restart's simplex edge on the log/logit scale (x 1.65), twice the first's

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
    steps: np.ndarray | None = None,
) -> Evaluation:
    """Nelder-Mead over ``names`` with every other parameter held at ``current``.

    ``steps``: the initial simplex's edges from ``current`` (rows; default 0.25 along each
    coordinate). ``current`` is always a vertex, so a block never ends worse than it began."""
    params = [p for p in PARAMS if p.name in names]
    best = [current]

    def f(x: np.ndarray) -> float:
        values = {**current.values, **{p.name: p.from_x(v) for p, v in zip(params, x, strict=True)}}
        ev = problem.evaluate(values, archs)
        if ev.loss < best[0].loss:
            best[0] = ev
            shown = " ".join(f"{p.name}={values[p.name]:.4g}" for p in params)
            log(f"  eval {problem.evaluations:4d}: loss {ev.loss:9.3f}  {shown}")
        return float(ev.loss)

    x0 = np.array([p.to_x(current.values[p.name]) for p in params])
    # scipy's default simplex steps 5 % of each coordinate: nothing for a coordinate at 0
    # (log 1, logit 0.5). Step every coordinate by 0.25 instead (x 1.28 on the log scale).
    simplex = np.vstack([x0, x0 + (0.25 * np.eye(len(x0)) if steps is None else steps)])
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


def rotated_steps(size: int, rng: np.random.Generator, length: float = RESTART_STEP) -> np.ndarray:
    """A simplex's edges of ``length`` along ``size`` random orthogonal directions (the Q of a
    Gaussian matrix's QR, signs fixed by R's diagonal: uniform over rotations)."""
    q, r = np.linalg.qr(rng.standard_normal((size, size)))
    return length * (q * np.sign(np.diag(r))).T


def fit_timing(
    problem: Problem,
    start: dict[str, float],
    maxfev: int,
    log: Callable[[str], None],
    passes: int = 2,
    restart: int | None = None,
) -> Evaluation:
    """Block coordinate descent (``BLOCKS``), ``maxfev`` evaluations per block and pass.

    ``restart``: the seed of a restart's simplices. Nelder-Mead from the same point and the
    same axis-aligned simplex is deterministic: a round that ended where it began would end
    there again. A restart steps each block along random orthogonal directions, farther
    (``RESTART_STEP``), from the same point, which stays a vertex: the loss cannot rise."""
    rng = None if restart is None else np.random.default_rng(restart)
    current = problem.evaluate(start)
    problem.keep(current)
    log(f"  start: loss {current.loss:9.3f}" + ("" if restart is None else f" (restart {restart})"))
    for n in range(passes):
        for name, names, archs in BLOCKS:
            log(f" pass {n + 1}, block {name}")
            steps = None if rng is None else rotated_steps(len(names), rng)
            current = fit_block(problem, current, names, archs, maxfev, log, steps)
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


def fit_redelegate(problem: Problem, params: SyntheticParams, log: Callable[[str], None]) -> float:
    """HCL's 770 cloud calls at C = 1 (RTX 5090) fix how often the cloud lead re-delegates
    after a failed delegation: every re-delegation is one more lead turn, and the tasks whose
    sub-agent outgrew the context at C = 1 would otherwise loop (and call) far more."""
    goal = next(t for t in TARGETS if t.metric == "cloud_calls" and t.arch == "HCL").value
    workload = synthetic_workload(params, problem.seed)
    profile = problem.devices.profile("paper-rtx5090")

    def calls(p: float) -> float:
        profile.behaviour.hcl_redelegate_p = p
        return float(
            sum(r.cloud_calls for r in simulate(profile, "HCL", 1, problem.seed, workload).task_runs())
        )

    p = bisect_monotone(calls, goal, 0.0, 0.99)
    log(f"  behaviour hcl_redelegate_p = {p:.4f}")
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


__all__ = [
    "BLOCKS",
    "bisect_monotone",
    "fit_block",
    "fit_cache_hit",
    "fit_exposure",
    "fit_redelegate",
    "fit_timing",
    "rotated_steps",
]
