"""``--repeat N``: repeated attempts of every (configuration, task), and their spread.

With N repeats the first N finished attempts of a pair (by attempt number) are its repeats,
numbered 1..N in that order; an ``interrupted`` attempt is never one, so a resumed run only
finishes the missing repeats and nothing is counted twice. Every repeat counts in the outcome
figures (a success rate is then over attempts), and each configuration gets a ``repeats``
block: the success rate of each repeat, their mean, standard deviation, range and a 95 %
confidence interval of the mean (Student's t over the per-repeat rates; with one repeat there
is no interval), and the Wilson 95 % interval of the pooled attempts beside it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from agbench.status import Status

#: Two-sided 95 % coverage.
CONFIDENCE = 0.95


def repeats_of(meta: Mapping[str, Any] | None) -> int:
    """The run's ``--repeat`` (run.json ``options.repeat``; 1 for runs made without it)."""
    options = (meta or {}).get("options")
    value = options.get("repeat", 1) if isinstance(options, Mapping) else 1
    try:
        return max(1, int(value))
    except (TypeError, ValueError):
        return 1


def wilson_interval(successes: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float] | None:
    """Wilson score interval of a success fraction at ``confidence`` (None without attempts)."""
    if n <= 0:
        return None
    from scipy import stats

    z = float(stats.norm.ppf(0.5 + confidence / 2))
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def t_interval(values: list[float]) -> tuple[float, float] | None:
    """95 % Student-t interval of the mean of ``values`` (None with fewer than two), in [0, 1]."""
    if len(values) < 2:
        return None
    from scipy import stats

    mean = sum(values) / len(values)
    sd = float(pd.Series(values).std(ddof=1))
    half = float(stats.t.ppf(0.5 + CONFIDENCE / 2, len(values) - 1)) * sd / math.sqrt(len(values))
    return max(0.0, mean - half), min(1.0, mean + half)


def repeat_spread(rows: pd.DataFrame) -> dict[str, Any]:
    """One configuration's repeats (``rows``: its counted attempts with a ``repeat`` column)."""
    success = rows["status"].astype(str) == Status.SUCCESS.value
    by_repeat = [float(success[rows["repeat"] == r].mean()) for r in sorted(rows["repeat"].unique())]
    sd = float(pd.Series(by_repeat).std(ddof=1)) if len(by_repeat) > 1 else None
    ci = t_interval(by_repeat)
    pooled = wilson_interval(int(success.sum()), len(rows))
    per_task = success.groupby(rows["task"].astype(str)).mean()
    return {
        "repeats": len(by_repeat),
        "tasks": int(rows["task"].nunique()),
        "attempts": len(rows),
        "success_rate_by_repeat": by_repeat,
        "success_rate_mean": sum(by_repeat) / len(by_repeat) if by_repeat else None,
        "success_rate_std": sd,
        "success_rate_min": min(by_repeat) if by_repeat else None,
        "success_rate_max": max(by_repeat) if by_repeat else None,
        "success_rate_ci95": list(ci) if ci else None,
        "ci_method": "Student t over the per-repeat success rates",
        "pooled_wilson_ci95": list(pooled) if pooled else None,
        "tasks_always_solved": int((per_task == 1.0).sum()),
        "tasks_sometimes_solved": int(((per_task > 0) & (per_task < 1)).sum()),
    }


__all__ = ["CONFIDENCE", "repeat_spread", "repeats_of", "t_interval", "wilson_interval"]
