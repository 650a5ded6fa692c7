"""``validation.json``: simulated vs live figures per metric (``agbench validate``).

Rows at concurrency levels (or rates) the profile was not fitted on are ``held_out``; their
error (``mape_held_out``) is the prediction error that counts.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from agbench.results.summary import ResultModel

#: Version of the validation.json layout.
VALIDATION_SCHEMA_VERSION = 1


class ValidationRow(ResultModel):
    """One configuration (or load level) of one live run, compared with its simulation."""

    run: str = ""
    architecture: str | None = None
    concurrency: int | None = None
    level: str | None = Field(default=None, description="load runs: the offered level")
    offered_rate: float | None = None
    held_out: bool = False
    live: float | None = None
    sim: float | None = None
    error_pct: float | None = None
    abs_diff: float | None = None


class MetricValidation(ResultModel):
    """One metric's rows and errors (``mape``: mean absolute % error over the rows)."""

    kind: str = ""
    mape: float | None = None
    mape_held_out: float | None = None
    max_abs_diff: float | None = None
    worst_row: ValidationRow | None = None
    coverage_90: float | None = None
    saturated_rows: int | None = None
    rows: list[ValidationRow] = Field(default_factory=list)


class ValidationReport(ResultModel):
    """The whole file (a load run's also has ``kind: "load"``, ``run``, ``fitted_levels``)."""

    kind: str | None = None
    run: str | None = None
    profile: str = ""
    scenario: str = ""
    fit_concurrency: list[int] = Field(default_factory=list)
    runs: list[str] = Field(default_factory=list)
    fitted_levels: list[str] | None = None
    levels: list[str] | None = None
    metrics: dict[str, MetricValidation] = Field(default_factory=dict)
    outcome_agreement: dict[str, Any] | float | None = None
    brier: float | None = None


__all__ = ["VALIDATION_SCHEMA_VERSION", "MetricValidation", "ValidationReport", "ValidationRow"]
