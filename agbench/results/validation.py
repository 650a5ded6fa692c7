"""``validation.json``: simulated vs live figures per metric (``agbench validate``).

Rows at concurrency levels (or rates) the profile was not fitted on are ``held_out``; their
error (``mape_held_out``) is the prediction error that counts. Each row carries its verdict
(``pass``: within the metric's bound, not missing, not saturated; agbench.calibration.scoring),
and each metric its pass rate, worst row, misses, saturated rows and, where the simulation was
repeated over draws of the server rates, its 90 % interval coverage.
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field

from agbench.results.summary import ResultModel

#: Version of the validation.json layout.
VALIDATION_SCHEMA_VERSION = 1


class ValidationRow(ResultModel):
    """One configuration (or load level) of one live run, compared with its simulation."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, serialize_by_alias=True)

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
    missing: bool | None = Field(default=None, description="the value is missing on one side")
    saturated: bool | None = Field(default=None, description="peak KV at the pool's cap on both sides")
    sim_nominal: float | None = Field(
        default=None, description="with draws: the nominal run's value (``sim`` is the draws' median)"
    )
    sim_p05: float | None = Field(default=None, description="5th percentile over the rate draws")
    sim_p95: float | None = Field(default=None, description="95th percentile over the rate draws")
    passed: bool | None = Field(default=None, alias="pass", description="within the metric's bound")


class MetricValidation(ResultModel):
    """One metric's rows and scores (``mape``: mean absolute % error over the rows; the scores
    are over the held-out rows, or every row where none is held out)."""

    kind: str = ""
    mape: float | None = None
    mape_held_out: float | None = None
    max_abs_diff: float | None = None
    rows_scored: int | None = None
    pass_rate: float | None = None
    missing_rows: int | None = None
    saturated_rows: int | None = None
    worst_row: ValidationRow | None = None
    coverage_90: float | None = Field(default=None, description="share of live values inside the 90 % band")
    coverage_rows: int | None = None
    rows: list[ValidationRow] = Field(default_factory=list)


class ShareOverPairs(ResultModel):
    """A figure over (configuration, task) pairs: all of them and the held-out levels' only."""

    all: float | None = None
    held_out: float | None = None
    pairs: int | None = None
    held_out_pairs: int | None = None
    draws: int | None = Field(default=None, description="brier: simulations the probabilities came from")


class IntervalMethod(ResultModel):
    """How the 90 % intervals were drawn (agbench.calibration.intervals)."""

    level: float
    draws: int
    method: str
    point: str | None = Field(default=None, description="what a row's ``sim`` is where there are draws")
    noise_floor: str | None = Field(
        default=None,
        description="where the noise floor each band is widened to was measured (None: not widened)",
    )
    held_out_error: str | None = Field(
        default=None,
        description="where the held-out error each held-out row's band is widened to was measured "
        "(None: not widened)",
    )


class ValidationReport(ResultModel):
    """The whole file (a load run's also has ``kind: "load"``, ``run``, ``fitted_levels``)."""

    kind: str | None = None
    run: str | None = None
    profile: str = ""
    scenario: str = ""
    fit_concurrency: list[int] = Field(default_factory=list)
    server_profile: str | None = Field(default=None, description="the server profile the fit started from")
    runs: list[str] = Field(default_factory=list)
    fitted_levels: list[str] | None = None
    levels: list[str] | None = None
    metrics: dict[str, MetricValidation] = Field(default_factory=dict)
    outcome_agreement: ShareOverPairs | float | None = Field(
        default=None, description="share of live (configuration, task) pairs given the same status"
    )
    brier: ShareOverPairs | float | None = Field(
        default=None, description="simulated failure probability vs the live outcome"
    )
    intervals: IntervalMethod | None = None
    range_warnings: list[str] = Field(default_factory=list)
    skipped_incomplete: list[str] = Field(
        default_factory=list, description="configurations the live run stopped in the middle of"
    )

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_unset=True, by_alias=True)


__all__ = [
    "VALIDATION_SCHEMA_VERSION",
    "IntervalMethod",
    "MetricValidation",
    "ShareOverPairs",
    "ValidationReport",
    "ValidationRow",
]
