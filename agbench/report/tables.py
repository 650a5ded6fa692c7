"""Per-attempt result files: ``results.csv`` and ``graded_results.jsonl``.

One row per task attempt, interrupted and superseded attempts included (they are kept for
audit), with ``counted`` saying which attempt is the (configuration, task) pair's result and
``valid`` whether it enters the README's valid-tasks score.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

from agbench.metrics.outcomes import counted_attempts
from agbench.records import columns
from agbench.status import INVALID_FOR_VALID_SCORE, Status

LEADING_COLUMNS = [
    "device",
    "architecture",
    "concurrency",
    "task",
    "category",
    "attempt",
    "status",
    "reward",
    "wall_s",
]
_INVALID = {s.value for s in INVALID_FOR_VALID_SCORE}


def attempt_rows(task_runs: pd.DataFrame, repeats: int = 1) -> pd.DataFrame:
    """Every attempt with ``wall_s``, ``counted`` and ``valid`` added, contract columns first
    (``repeats``: the run's ``--repeat``; each of a pair's repeats is counted)."""
    frame = task_runs.copy()
    frame["status"] = frame["status"].astype(str)
    frame["wall_s"] = frame["t_end"] - frame["t_start"]
    counted = counted_attempts(task_runs, repeats)
    keys = set(
        zip(
            counted["device"],
            counted["architecture"],
            counted["concurrency"],
            counted["task"],
            counted["attempt"],
            strict=True,
        )
    )
    frame["counted"] = [
        key in keys
        for key in zip(
            frame["device"],
            frame["architecture"],
            frame["concurrency"],
            frame["task"],
            frame["attempt"],
            strict=True,
        )
    ]
    frame["valid"] = ~frame["status"].isin(_INVALID) & (frame["status"] != Status.INTERRUPTED.value)
    extra = ["counted", "valid", "grading_method", "judgement"]  # the last two from judgements.jsonl
    rest = [c for c in [*columns("task_runs"), *extra] if c not in LEADING_COLUMNS and c in frame]
    frame = frame[LEADING_COLUMNS + rest]
    return frame.sort_values(
        ["device", "architecture", "concurrency", "task", "attempt"], kind="stable"
    ).reset_index(drop=True)


def write_results_csv(task_runs: pd.DataFrame, path: Path, repeats: int = 1) -> Path:
    """One row per attempt; the judge's full exchange stays in graded_results.jsonl."""
    attempt_rows(task_runs, repeats).drop(columns=["judgement"], errors="ignore").to_csv(path, index=False)
    return path


def _plain(value: Any) -> Any:
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def write_graded_results(task_runs: pd.DataFrame, path: Path, repeats: int = 1) -> Path:
    """One JSON object per attempt: outcome, grade, the verifier's reason and, for judged rows,
    the judge's raw text, parsed JSON, usage and cost (and the exposure judge's findings)."""
    frame = attempt_rows(task_runs, repeats)
    with path.open("w", encoding="utf-8") as fh:
        for record in frame.to_dict(orient="records"):
            judgement = record.pop("judgement", None)
            row = {str(k): _plain(v) for k, v in record.items()}
            if isinstance(judgement, dict):  # raw judge text, parsed JSON, usage, cost, exposure
                row.update({k: v for k, v in judgement.items() if k not in row or k.startswith("judge")})
                row["judge_verdict"] = {
                    k: judgement[k] for k in ("status", "reward", "reason") if k in judgement
                }
            fh.write(json.dumps(row, default=str) + "\n")
    return path


__all__ = ["LEADING_COLUMNS", "attempt_rows", "write_graded_results", "write_results_csv"]
