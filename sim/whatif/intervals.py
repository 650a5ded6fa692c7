"""Intervals on a what-if answer: the front's objectives over draws of each device's inputs.

A Pareto front picked from point predictions can hide a tie: two deployments whose figures
differ by less than the devices' own inputs are known. So after the search, each front point
is simulated again under N draws of its device scenario's uncertain inputs (the bootstrap
server rates of a calibrated profile, else the scenario's ``[uncertainty]`` ranges;
sim/uncertainty.py), and the report gives each objective its 90 % range. The *answer* (the
front's best point on the first objective) is then checked draw by draw against the other
front points: when another one is better in some draw, the answer flips inside the interval
and the report says so, with how often. Only front points are redrawn (their count, not the
grid's, sets the cost); a point off the front that would overtake in some draw is not seen,
which the method line states.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from agbench.sim.profiles import Profile
from agbench.sim.scenario import load_scenario
from agbench.sim.uncertainty import profile_overlays
from agbench.sim.whatif.chunks import run_chunks
from agbench.sim.whatif.result import FrontIntervals, WhatIfResult
from agbench.sim.whatif.spec import OBJECTIVES
from agbench.sim.workloads.base import Workload

#: ``agbench whatif`` draws per front point when a device states its uncertainty.
DEFAULT_DRAWS = 8


def _better(objective: str, a: float, b: float) -> bool:
    return a > b if OBJECTIVES[objective] == "max" else a < b


def front_intervals(
    result: WhatIfResult,
    draws: int,
    *,
    workers: int = 1,
    ray: str | None = None,
    limit: int | None = None,
) -> FrontIntervals:
    """Simulate the front again under ``draws`` draws of each device's uncertain inputs."""
    sp = result.spec
    objs = sp.objectives
    bases: list[dict[str, Profile]] = [{} for _ in range(max(draws, 0))]
    workloads: dict[str, Workload] = {}
    kinds: dict[str, str] = {}
    n = limit if limit is not None else sp.limit
    for name in sp.space["device"]:
        sc = load_scenario(name)
        workloads[name] = sc.workload(seed=sp.seed, limit=n or None)
        kind, overlays = profile_overlays(sc.profile, sc.uncertain, draws, sp.seed)
        kinds[name] = kind
        for k in range(len(bases)):
            bases[k][name] = sc.profile.merged(overlays[k]) if overlays else sc.profile
    out = FrontIntervals(
        draws=draws,
        kinds=kinds,
        method=(
            "each front point simulated again under each draw of its device scenario's uncertain "
            "inputs (calibrated: bootstrap server rates x drift; assumptions: the scenario's "
            "[uncertainty] ranges, not a calibrated interval), each draw with its own timing-jitter "
            "stream where calibration measured the spread; points off the front not redrawn"
        ),
    )
    front = [i for i in result.front if kinds.get(result.results[i].point.device, "none") != "none"]
    if draws <= 0 or not front:
        return out
    items = [(result.results[i].point, result.results[i].point.device) for i in front]
    per_draw = [
        run_chunks([items], bases[k], workloads, sp.seed, workers=workers, ray=ray, jitter=k + 1)
        for k in range(draws)
    ]
    for j, i in enumerate(front):
        out.bands[i] = {}
        for o in objs:
            values = [d[j].objectives[o] for d in per_draw if o in d[j].objectives]
            if values:
                out.bands[i][o] = (float(np.percentile(values, 5)), float(np.percentile(values, 95)))
    first = objs[0]
    sign = 1.0 if OBJECTIVES[first] == "max" else -1.0
    out.answer = max(front, key=lambda i: sign * result.results[i].objectives[first])
    a = front.index(out.answer)
    for d in per_draw:
        beaten = tied = False
        for j, i in enumerate(front):
            if i == out.answer:
                continue
            mine, theirs = d[a].objectives[first], d[j].objectives[first]
            if _better(first, theirs, mine):
                out.flips[i] = out.flips.get(i, 0) + 1
                beaten = True
            elif abs(theirs - mine) <= 1e-9 * max(1.0, abs(mine)):
                tied = True
        out.flipped_draws += beaten
        out.tied_draws += tied and not beaten
    return out


def with_intervals(result: WhatIfResult, intervals: FrontIntervals) -> WhatIfResult:
    """The result carrying its front intervals (the report reads them from here)."""
    return dataclasses.replace(result, intervals=intervals)


__all__ = ["DEFAULT_DRAWS", "FrontIntervals", "front_intervals", "with_intervals"]
