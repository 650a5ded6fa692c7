"""``agbench sim --draws N``: the point simulation plus its 90 % interval per figure.

The point run is exactly what ``agbench sim`` writes without draws (same scenario, seed and
jobs, so its summary is unchanged); the draws are the same matrix again with each draw's
profile overlay (intervals.draw_plan), summarized through the one ``summarize`` path, and only
their percentiles are kept (``intervals.json`` beside the run's tables, laid onto summary.json
by the report's loader). Draws never write trace tables: a run directory still holds one
simulation, the one its records describe.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Sequence
from pathlib import Path

from agbench.calibration.intervals import DrawPlan, default_draws, draw_plan
from agbench.calibration.noise_floor import floored
from agbench.calibration.validation import records_to_tables
from agbench.config import Architecture
from agbench.errors import AgbenchError
from agbench.metrics import summarize
from agbench.results.intervals import (
    INTERVALS_FILE,
    ConfigurationIntervals,
    PredictionIntervals,
    RunIntervals,
    interval_metrics,
    unavailable,
)
from agbench.results.summary import ConfigurationSummary
from agbench.sim import run_matrix
from agbench.sim.metrics_out import run_meta
from agbench.sim.scenario import Scenario, load_scenario
from agbench.sim.sweep import matrix_jobs, run_jobs
from agbench.sim.workloads.base import Workload

log = logging.getLogger(__name__)


def drawn_summaries(
    scenario: Scenario,
    workload: Workload,
    archs: Sequence[Architecture],
    concurrency: Sequence[int],
    seed: int,
    plan: DrawPlan,
    *,
    workers: int = 1,
    ray: str | None = None,
    fresh_servers: bool = False,
) -> list[list[ConfigurationSummary]]:
    """Per draw, the summary's configurations of the matrix under that draw's profile."""
    variants = [dataclasses.replace(scenario, profile=scenario.profile.merged(o)) for o in plan.overlays]
    # each draw also takes a timing-jitter stream of its own (sim/agents/timing_jitter.py)
    jobs = [
        matrix_jobs(v, workload, archs, concurrency, seed, f"draw-{i}", jitter=i + 1)
        for i, v in enumerate(variants)
    ]
    flat = run_jobs([j for js in jobs for j in js], workers=workers, ray=ray, fresh_servers=fresh_servers)
    out: list[list[ConfigurationSummary]] = []
    i = 0
    for variant, js in zip(variants, jobs, strict=True):
        part = flat[i : i + len(js)]
        i += len(js)
        records = [rec for r in part for rec in r.records]
        meta = run_meta(variant, part, workload.agent_kind, seed, {"run_id": "draw"}).to_dict()
        out.append(summarize(records_to_tables(records), meta).configurations)
    return out


def run_intervals(
    plan: DrawPlan, draws: list[list[ConfigurationSummary]], keys: list[tuple[str, str, int]]
) -> RunIntervals:
    """intervals.json's content: per configuration the percentiles over its draws, or the
    plain statement that there is none."""
    entries: list[ConfigurationIntervals] = []
    for key in keys:
        if plan.kind == "none" or not draws:
            iv = unavailable(plan.reason or "no draws")
        else:
            mine = [c for d in draws for c in d if c.key == key]
            iv = PredictionIntervals(
                available=bool(mine),
                kind=plan.kind,
                draws=len(mine),
                method=plan.method,
                drawn=plan.drawn,
                not_drawn=plan.not_drawn,
                reason="" if mine else "no draw simulated this configuration",
                metrics=floored(
                    interval_metrics(mine), plan.floor, None if key[2] in plan.fit_levels else plan.held_out
                ),
            )
        device, arch, conc = key
        entries.append(
            ConfigurationIntervals(device=device, architecture=arch, concurrency=conc, intervals=iv)
        )
    return RunIntervals(configurations=entries)


def run_matrix_with_intervals(
    scenario: str | Path | Scenario,
    *,
    draws: int | None,
    archs: list[Architecture] | None = None,
    concurrency: list[int] | None = None,
    seed: int = 0,
    out_dir: Path | None = None,
    ray: str | None = None,
    trajectories: Path | None = None,
    profile: Path | None = None,
    limit: int | None = None,
    fresh_servers: bool = False,
) -> Path:
    """``agbench sim``: the point run, and with draws (``None``: intervals.default_draws) its
    intervals in ``intervals.json``. ``draws == 0`` is the plain run, file for file. The draws
    share servers between configurations as the point run does (``fresh_servers``)."""
    sc = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
    if profile is not None:
        sc = sc.with_profile(Path(profile))
    n = default_draws(sc) if draws is None else draws
    if n < 0:
        raise AgbenchError(f"--draws must be at least 0, got {n}")
    extra: dict[str, str] = {}
    if n > 0:
        plan = draw_plan(sc, n, seed)
        a = archs or sc.archs
        c = concurrency or sc.concurrency
        workload = sc.workload(seed=seed, trajectories=trajectories, limit=limit)
        summaries = (
            drawn_summaries(sc, workload, a, c, seed, plan, ray=ray, fresh_servers=fresh_servers)
            if plan.overlays
            else []
        )
        device = sc.profile.device.name
        keys = [(device, arch.value, level) for arch in a for level in c]
        intervals = run_intervals(plan, summaries, keys)
        if plan.kind == "none":
            log.warning("no interval: %s", plan.reason)
        extra[INTERVALS_FILE] = json.dumps(intervals.to_json_dict(), indent=1)
    return run_matrix(
        sc,
        archs=archs,
        concurrency=concurrency,
        seed=seed,
        out_dir=out_dir,
        ray=ray,
        trajectories=trajectories,
        limit=limit,
        extra_files=extra,
        fresh_servers=fresh_servers,
    )


__all__ = ["drawn_summaries", "run_intervals", "run_matrix_with_intervals"]
