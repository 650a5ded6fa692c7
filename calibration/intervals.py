"""Prediction intervals: the simulation repeated over plausible server rates.

A point prediction hides how much it depends on the calibration data. Each *draw* takes the
server's rates from one bootstrap resample of the server profile's calls (the coefficients as
the data allow them; ``server_profile.bootstrap_refits``, the CPU speeds beside a busy core or a
twin server refitted on the same resample) and scales the rates by the measured noise
floor: the larger of the drift between the profile's repetitions minutes apart
(``server_profile.repeat_drift``) and how far the calibration run's configurations landed from
the profile (``run_drift``: the server of a configuration recorded later, under the machine's
load then; a held-out configuration's speed drawn from the Student t that a spread estimated
from a few configurations gives a new one, the draws stratified over its quantiles). The
simulation runs once per draw; a metric's 90 % interval is the 5th to 95th percentile over the
draws, and each (configuration, task)'s failure probability is the share of draws where it
did not succeed.

Each draw also takes a timing-jitter stream of its own (sim/agents/timing_jitter.py): every
turn gap, request overhead, sandbox setup and verification and tool call drawn around its
fitted mean with the call-to-call spread measured at the fit levels. Where two agents' requests
arrive milliseconds apart, which one the server reads first decides whose decode waits behind
whose prompt; one deterministic timeline shows one such pattern, the draws several, so the
interval holds the chaos of timing a live recording is one sample of.

What is *not* drawn (stated wherever the interval is shown): the agents' turns and tokens
(replayed as recorded), and the workload's task order.

:func:`draw_plan` decides what ``agbench sim --draws N`` varies for a scenario: the server
rates as above when its calibrated profile carries bootstrap data; else the scenario's stated
assumption ranges (``[uncertainty]``, sim/uncertainty.py), labelled as such; else nothing, and
the summary says that no interval is available rather than showing a band of zero width.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agbench.calibration.held_out_error import held_out_reach, held_out_source
from agbench.calibration.noise_floor import floor_sigmas, floor_source
from agbench.results.summary import IntervalKind
from agbench.sim.scenario import Scenario
from agbench.sim.uncertainty import (
    assumption_overlays,
    has_bootstrap,
    rate_draws,
    server_draws,
    stated_values,
)

#: What an interval's shape is, reported with it.
LEVEL = 0.9
METHOD = (
    "server rates and CPU speeds (crowded, displaced, busy core) from bootstrap resamples of "
    "the server profile's calls, the rates x the larger measured drift (between its "
    "repetitions, or from it to the calibration run's configurations: a Student t for a new "
    "configuration, stratified over its quantiles), with "
    "each draw's turn gaps, request overheads, sandbox setup and tool times drawn around their "
    "means with the spread measured at the fit levels; each band then made no narrower than the "
    "profile's noise floor between live recordings and, at a level the fit did not see, than "
    "the simulator's held-out error; turns and tokens not drawn"
)

#: What a scored point is where there are draws (calibration/scoring.predictive_median).
POINT = (
    "the median of the nominal run and the draws (each pair's status: the one most of them "
    "gave); the nominal run, every input at its fitted value and no jitter, is sim_nominal"
)


def percentiles(values: list[float]) -> tuple[float, float] | None:
    """(p05, p95) of the finite values; None without any."""
    v = [x for x in values if x is not None and math.isfinite(x)]
    if not v:
        return None
    return float(np.percentile(v, 5)), float(np.percentile(v, 95))


def interval_object(per_metric: dict[str, tuple[float, float]], draws: int) -> dict[str, Any]:
    """The optional ``intervals`` object of one simulated configuration in summary.json:
    ``{"level": 0.9, "draws": N, "method": str, "metrics": {METRIC: {"p05": x, "p95": y}}}``."""
    return {
        "level": LEVEL,
        "draws": draws,
        "method": METHOD,
        "metrics": {m: {"p05": lo, "p95": hi} for m, (lo, hi) in per_metric.items()},
    }


#: Draws ``agbench sim`` makes unasked when the calibrated profile has bootstrap data: one per
#: bootstrap refit profile-server writes (20), enough for a rough 90 % band; a draw costs one
#: simulation of the matrix (seconds), not a report.
DEFAULT_DRAWS = 20
#: What every draw's timing-jitter stream varies, as ``drawn`` names it.
JITTER_DRAWN = "timing jitter: turn gaps, request overheads, sandbox setup and tool times"
#: What the noise floor adds, as ``drawn`` names it (noise_floor.py: a floor, not a draw).
FLOOR_DRAWN = "each band no narrower than two live recordings of a configuration differ by"
#: What the held-out error adds, as ``drawn`` names it (held_out_error.py: a floor, not a draw).
HELD_OUT_DRAWN = (
    "each band at a concurrency the fit did not see no narrower than the simulator's 90 % held-out error"
)
NOT_DRAWN_CALIBRATED = [
    "agents' turns and tokens (as the trajectories record them)",
    "the workload (one seed: the same tasks in the same order in every draw)",
]
NOT_DRAWN_ASSUMED = [
    "every scenario value without a stated range",
    "the workload (one seed: the same tasks in the same order in every draw)",
]


@dataclass
class DrawPlan:
    """What the draws of one scenario vary: one profile overlay per draw, and the words that
    say so wherever the interval is shown."""

    kind: IntervalKind
    overlays: list[dict[str, Any]] = field(default_factory=list)
    method: str = ""
    drawn: list[str] = field(default_factory=list)
    not_drawn: list[str] = field(default_factory=list)
    reason: str = ""
    #: dotted figure key -> sigma: each band widened to it (noise_floor.py); empty: not widened
    floor: dict[str, float] = field(default_factory=dict)
    #: dotted figure key -> log half-width: each band at a concurrency outside ``fit_levels``
    #: widened to it too (held_out_error.py); empty: not widened
    held_out: dict[str, float] = field(default_factory=dict)
    #: the concurrency levels the profile was fitted on
    fit_levels: list[int] = field(default_factory=list)


def default_draws(scenario: Scenario) -> int:
    """``--draws`` when not given: :data:`DEFAULT_DRAWS` with calibration data to resample,
    else 0 (assumption ranges are a sensitivity study, run when asked for)."""
    return DEFAULT_DRAWS if has_bootstrap(scenario.profile.fit) else 0


def draw_plan(scenario: Scenario, draws: int, seed: int = 0) -> DrawPlan:
    """The draws for ``agbench sim --draws N`` on this scenario (with its profile laid over)."""
    fit = scenario.profile.fit
    if has_bootstrap(fit):
        servers = server_draws(fit, draws, seed)
        floor = floor_sigmas(fit)
        held_out = held_out_reach(fit)
        return DrawPlan(
            kind="calibrated",
            overlays=[{"server": d} for d in servers],
            method=METHOD,
            drawn=[
                *sorted({k for d in servers for k in (*d["rates"], *d) if k != "rates"}),
                JITTER_DRAWN,
                *([f"{FLOOR_DRAWN} ({floor_source(fit)})"] if floor else []),
                *([f"{HELD_OUT_DRAWN} ({held_out_source(fit)})"] if held_out else []),
            ],
            not_drawn=list(NOT_DRAWN_CALIBRATED),
            floor=floor,
            held_out=held_out,
            fit_levels=[int(c) for c in fit.get("concurrency", [])],
        )
    if scenario.uncertain:
        stated = stated_values(scenario.profile)
        ranges = scenario.uncertain
        drawn = [
            f"{k} in [{lo:g}, {hi:g}] ({scenario.uncertain_sources.get(k, '')})"
            for k, (lo, hi) in sorted(ranges.items())
        ]
        return DrawPlan(
            kind="assumptions",
            overlays=assumption_overlays(ranges, stated, draws, seed),
            method=(
                "a range over the scenario's stated assumptions, not a calibrated interval: each "
                "[uncertainty] field drawn uniformly and independently in its range"
            ),
            drawn=drawn,
            not_drawn=list(NOT_DRAWN_ASSUMED),
        )
    return DrawPlan(
        kind="none",
        reason=(
            "the calibrated profile has no bootstrap data (calibrate with --server-profile) and "
            f"scenario {scenario.name} states no [uncertainty] ranges"
            if fit
            else f"scenario {scenario.name} has no calibration data and states no [uncertainty] ranges"
        ),
    )


__all__ = [
    "DEFAULT_DRAWS",
    "LEVEL",
    "METHOD",
    "POINT",
    "DrawPlan",
    "default_draws",
    "draw_plan",
    "has_bootstrap",
    "interval_object",
    "percentiles",
    "rate_draws",
    "server_draws",
]
