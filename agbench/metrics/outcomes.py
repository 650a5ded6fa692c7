"""Task outcomes: which attempts count, success, suite time, goodput, completion, scores.

Paper definitions (DESIGN.md, "Metrics"). An ``interrupted`` attempt never counts; when a
(configuration, task) pair has several finished attempts (a resumed run re-ran it, or the
runner retried), the last finished one is the result, so a resumed sweep reports the same
figures as an uninterrupted one.
With ``--repeat N`` the first N finished attempts of a pair all count, as its repeats.
"""

from __future__ import annotations

from typing import Any, cast

import pandas as pd

from agbench.status import INVALID_FOR_VALID_SCORE, Status

CONFIG_KEYS = ["device", "architecture", "concurrency"]
ATTEMPT_KEYS = [*CONFIG_KEYS, "task", "attempt"]
CELL_KEYS = ["device", "concurrency"]
BREAKDOWN_COLUMNS = {
    "local_model": "local_model_s",
    "cloud_model": "cloud_model_s",
    "tools": "tools_s",
    "other": "other_s",
}
# Every status a counted attempt can end with except success: the failure taxonomy.
FAILURE_STATUSES = [s.value for s in Status if s not in (Status.SUCCESS, Status.INTERRUPTED)]
_INVALID = {s.value for s in INVALID_FOR_VALID_SCORE}


def counted_attempts(task_runs: pd.DataFrame, repeats: int = 1) -> pd.DataFrame:
    """One row per (configuration, task): its last finished attempt, as the result.

    ``repeats`` > 1 (``--repeat N``, agbench.metrics.repeats): the pair's first N finished
    attempts all count, numbered 1..N in a ``repeat`` column."""
    finished = task_runs[task_runs["status"].astype(str) != Status.INTERRUPTED.value]
    ordered = finished.sort_values([*CONFIG_KEYS, "task", "attempt"], kind="stable")
    if repeats > 1:
        out = ordered.groupby([*CONFIG_KEYS, "task"], sort=False, observed=True).head(repeats).copy()
        out["repeat"] = out.groupby([*CONFIG_KEYS, "task"], sort=False, observed=True).cumcount() + 1
    else:
        out = ordered.drop_duplicates([*CONFIG_KEYS, "task"], keep="last").copy()
    out["status"] = out["status"].astype(str)
    out["wall_s"] = out["t_end"] - out["t_start"]
    return out.reset_index(drop=True)


def common_success_tasks(counted: pd.DataFrame) -> dict[tuple[str, int], set[str]]:
    """Per device × concurrency cell: the tasks that every architecture present there solved.

    An architecture present in the cell with no success makes the set empty; adding an
    architecture can only shrink the set (it is an intersection).
    """
    out: dict[tuple[str, int], set[str]] = {}
    for cell_key, cell in counted.groupby(CELL_KEYS, sort=True, observed=True):
        device, conc = cast(tuple[Any, Any], cell_key)
        common: set[str] | None = None
        for _arch, rows in cell.groupby("architecture", observed=True):
            solved = set(rows.loc[rows["status"] == Status.SUCCESS.value, "task"].astype(str))
            common = solved if common is None else common & solved
        out[(str(device), int(conc))] = common or set()
    return out


def _rate(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def scores(rows: pd.DataFrame) -> dict[str, float | None]:
    """The README's three score variants, as success fractions (null when nothing qualifies).

    raw: every counted task; valid: without setup failures and timeouts; model-valid: valid
    rows where the harness exposed every capability the task needs (``full_capability``).
    """
    success = rows["status"] == Status.SUCCESS.value
    valid = ~rows["status"].isin(_INVALID)
    full = valid & rows["full_capability"].fillna(False).astype(bool)
    return {
        "raw_score_all_tasks": _rate(int(success.sum()), len(rows)),
        "score_valid_tasks_only": _rate(int((success & valid).sum()), int(valid.sum())),
        "model_score_valid_tasks_only": _rate(int((success & full).sum()), int(full.sum())),
    }


def outcome_metrics(rows: pd.DataFrame, common: set[str]) -> dict[str, Any]:
    """Outcome metrics of one configuration's counted attempts."""
    n = len(rows)
    success_mask = rows["status"] == Status.SUCCESS.value
    successes = int(success_mask.sum())
    suite_wall_s = float(rows["t_end"].max() - rows["t_start"].min()) if n else 0.0
    # Goodput is 0 for a zero-length suite rather than infinite: JSON has no infinity.
    goodput = successes * 3600.0 / suite_wall_s if suite_wall_s > 0 else 0.0  # no underflow to 0
    in_common = rows[rows["task"].astype(str).isin(common) & success_mask]
    mean_common = float(in_common["wall_s"].mean()) if len(in_common) else None
    statuses = rows["status"].value_counts()
    failures = {s: int(statuses.get(s, 0)) for s in FAILURE_STATUSES}
    by_category: dict[str, dict[str, Any]] = {}
    for category, cat_rows in rows.groupby("category", sort=True, observed=True):
        cat_success = int((cat_rows["status"] == Status.SUCCESS.value).sum())
        by_category[str(category)] = {
            "tasks": len(cat_rows),
            "success": cat_success,
            "success_rate": _rate(cat_success, len(cat_rows)),
        }
    breakdown_mean = {k: float(rows[c].mean()) if n else 0.0 for k, c in BREAKDOWN_COLUMNS.items()}
    breakdown_total = {k: float(rows[c].sum()) for k, c in BREAKDOWN_COLUMNS.items()}
    return {
        "tasks": n,
        "success": successes,
        "success_rate": _rate(successes, n),
        "suite_wall_s": suite_wall_s,
        "goodput_per_h": goodput,
        "mean_completion_s_common": mean_common,
        "common_success_tasks": len(common),
        "mean_wall_s": float(rows["wall_s"].mean()) if n else None,
        "failures": failures,
        "by_category": by_category,
        "time_breakdown_s": breakdown_mean,
        "time_breakdown_total_s": breakdown_total,
        "local_context_errors": int(rows["local_context_errors"].sum()),
        "model_calls": int(rows["model_calls"].sum()),
        "tool_calls": int(rows["tool_calls"].sum()),
        **scores(rows),
    }


__all__ = [
    "ATTEMPT_KEYS",
    "BREAKDOWN_COLUMNS",
    "CELL_KEYS",
    "CONFIG_KEYS",
    "FAILURE_STATUSES",
    "common_success_tasks",
    "counted_attempts",
    "outcome_metrics",
    "scores",
]
