"""One configuration of a paper prediction as a flat table row (times in minutes and hours).

Why a module of its own: the predicted matrix (predict.py) and its ranges (ranges.py) lay out
the same rows, and each of those modules uses the other; the row layout sits below both.
"""

from __future__ import annotations

from typing import Any

from agbench.calibration.paper.figures import FAILURES
from agbench.results import ConfigurationSummary


def row_of(scenario: str, entry: ConfigurationSummary) -> dict[str, Any]:
    """One configuration of a summary.json as a flat row (times in minutes and hours)."""
    completion = entry.mean_completion_s_common
    row: dict[str, Any] = {
        "scenario": scenario,
        "device": entry.device,
        "arch": entry.architecture.value,
        "C": entry.concurrency,
        "success": entry.success,
        **{f.value: entry.failure_count(f) for f in FAILURES},
        "local_context_errors": entry.local_context_errors,
        "suite_h": entry.suite_wall_s / 3600.0,
        "goodput_per_h": entry.goodput_per_h,
        "completion_min": completion / 60.0 if completion is not None else None,
        "common_tasks": entry.common_success_tasks,
        "cloud_cost_usd": entry.cloud_cost_usd,
        "cloud_cost_failed_usd": entry.cloud_cost_failed_usd,
        "cloud_calls": entry.cloud_calls,
        "exposure": entry.exposure_ratio,
        **{f"{k}_min": float(v) / 60.0 for k, v in entry.time_breakdown_s.model_dump().items()},
    }
    return row


__all__ = ["row_of"]
