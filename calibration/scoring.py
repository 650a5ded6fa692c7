"""How a validation row is scored: passes, misses, saturation, the worst row, coverage, outcomes.

A mean absolute percentage error alone hides what matters for a prediction: a row beyond its
bound among rows well within it, a row missing on one side (silently dropped, it would look
like a pass), and a peak-KV row where both sides sit at the pool's cap (a constant equal to the
cap would score the same, so it tests nothing). Each row therefore gets a verdict; the metric
gets its per-row pass rate, its worst row and the number of saturated rows beside the MAPE, and
where the simulation came with a 90 % interval, the share of rows whose live value fell inside.

Per-task outcomes are scored too: counts that match can hide outcomes that do not (the
simulator may fail as many tasks as live, but other ones), so ``outcome_agreement`` is the share
of (configuration, task) pairs whose simulated status equals the live one, and, where the
simulator ran over several draws, ``brier`` scores each pair's simulated failure probability
against whether it failed live.
"""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any

import numpy as np

from agbench.results import ConfigurationSummary
from agbench.status import Status

#: Per-row bounds a row must meet to pass: relative metrics in %, counts as an absolute difference.
ROW_BOUNDS_PCT: dict[str, float] = {
    "suite_wall_s": 5.0,
    "mean_completion_s_common": 5.0,
    "goodput_per_h": 5.0,
    "kv_peak_cells": 5.0,
    "ttft_p50_s": 10.0,
}
DEFAULT_BOUND_PCT = 10.0
ROW_BOUNDS_ABS: dict[str, float] = {Status.SUCCESS.value: 0.0, Status.CONTEXT_LIMIT.value: 1.0}
#: A peak KV at or above this fraction of the pool is "at the cap".
SATURATED_FRACTION = 0.98

Outcomes = dict[tuple[str, int, str], str]  # (architecture, concurrency, task) -> status


def row_passes(metric: str, kind: str, row: dict[str, Any]) -> bool:
    """Whether one row meets its bound; a missing value or a saturated row never passes."""
    if row.get("missing") or row.get("saturated"):
        return False
    if kind == "count":
        return bool(row["abs_diff"] <= ROW_BOUNDS_ABS.get(metric, 0.0))
    err = row.get("error_pct")
    if err is None:  # live value 0: exact agreement is the only pass
        return bool(row["abs_diff"] == 0)
    return bool(abs(err) <= ROW_BOUNDS_PCT.get(metric, DEFAULT_BOUND_PCT))


def _severity(kind: str, row: dict[str, Any]) -> float:
    if row.get("missing"):
        return float("inf")
    if kind == "count" or row.get("error_pct") is None:
        return float(row["abs_diff"])
    return abs(float(row["error_pct"]))


def score_metric(metric: str, kind: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The honest figures of one metric over its rows (held-out rows where there are any)."""
    for row in rows:
        row["pass"] = row_passes(metric, kind, row)
    scored = [r for r in rows if r["held_out"]] or rows
    worst = max(scored, key=lambda r: _severity(kind, r), default=None)
    covered = [r for r in scored if r.get("sim_p05") is not None and r.get("live") is not None]
    inside = [r for r in covered if r["sim_p05"] <= r["live"] <= r["sim_p95"]]
    return {
        "rows_scored": len(scored),
        "pass_rate": sum(r["pass"] for r in scored) / len(scored) if scored else None,
        "missing_rows": sum(bool(r.get("missing")) for r in scored),
        "saturated_rows": sum(bool(r.get("saturated")) for r in scored),
        "worst_row": None
        if worst is None
        else {
            k: worst.get(k)
            for k in ("architecture", "concurrency", "live", "sim", "error_pct", "abs_diff", "missing")
        },
        "coverage_90": len(inside) / len(covered) if covered else None,
        "coverage_rows": len(covered),
    }


def saturated(entry_live: ConfigurationSummary, entry_sim: ConfigurationSummary | None) -> bool:
    """Both sides' peak KV at the pool's cap."""
    if entry_sim is None:
        return False
    fractions = (entry_live.kv_peak_fraction, entry_sim.kv_peak_fraction)
    return all(f is not None and float(f) >= SATURATED_FRACTION for f in fractions)


def outcomes_of(task_runs: Any) -> Outcomes:
    """(architecture, concurrency, task) -> status of the last attempt, from a task_runs table."""
    out: Outcomes = {}
    if task_runs is None or len(task_runs) == 0:
        return out
    frame = task_runs[task_runs["status"] != "interrupted"].sort_values("attempt")
    for row in frame.itertuples(index=False):
        out[(str(row.architecture), int(row.concurrency), str(row.task))] = str(row.status)
    return out


def predictive_median(values: list[float], kind: str) -> float:
    """The point a row scores where the simulation ran over draws: the median of the nominal
    run and the draws (the estimate that minimises the expected absolute error, how rows are
    scored). One deterministic run with every input at its fitted value is not the typical
    outcome of a timeline whose inputs vary: the live run is one draw of that variation. A
    count takes the lower median, a value some simulation gave."""
    if kind == "count":
        return float(statistics.median_low(values))
    return float(np.median(values))


def modal_outcomes(simulations: list[Outcomes]) -> Outcomes:
    """Each pair's status in most of the simulations (the nominal run first: a tie goes to the
    earliest listed), the outcome :func:`outcome_agreement` scores where there are draws."""
    out: Outcomes = {}
    for key in sorted({k for s in simulations for k in s}):
        statuses = [s[key] for s in simulations if key in s]
        counts = Counter(statuses)
        top = max(counts.values())
        out[key] = next(status for status in statuses if counts[status] == top)
    return out


def outcome_agreement(live: Outcomes, sim: Outcomes, held_out: set[int] | None = None) -> dict[str, Any]:
    """Share of live (configuration, task) pairs the simulator gave the same status (a pair the
    simulator lacks is a disagreement), over all pairs and over the held-out levels."""

    def share(keys: list[tuple[str, int, str]]) -> float | None:
        return sum(sim.get(k) == live[k] for k in keys) / len(keys) if keys else None

    keys = sorted(live)
    held = [k for k in keys if held_out is None or k[1] in held_out]
    return {"all": share(keys), "held_out": share(held), "pairs": len(keys), "held_out_pairs": len(held)}


def brier(live: Outcomes, draws: list[Outcomes], held_out: set[int] | None = None) -> dict[str, Any]:
    """Mean squared difference between each pair's simulated failure probability (share of
    draws where it did not succeed) and its live outcome (1: failed)."""

    def score(keys: list[tuple[str, int, str]]) -> float | None:
        if not keys or not draws:
            return None
        total = 0.0
        for k in keys:
            p_fail = sum(d.get(k, "missing") != "success" for d in draws) / len(draws)
            total += (p_fail - (live[k] != "success")) ** 2
        return total / len(keys)

    keys = sorted(live)
    held = [k for k in keys if held_out is None or k[1] in held_out]
    return {"all": score(keys), "held_out": score(held), "draws": len(draws)}


__all__ = [
    "DEFAULT_BOUND_PCT",
    "ROW_BOUNDS_ABS",
    "ROW_BOUNDS_PCT",
    "SATURATED_FRACTION",
    "brier",
    "modal_outcomes",
    "outcome_agreement",
    "outcomes_of",
    "predictive_median",
    "row_passes",
    "saturated",
    "score_metric",
]
