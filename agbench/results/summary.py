"""``summary.json`` as typed, versioned models: what every writer builds and every reader reads.

A run's summary (:class:`RunSummary`) holds one :class:`ConfigurationSummary` per device ×
architecture × concurrency; a comparison of several runs (:class:`ComparisonSummary`) lists
their configurations together, each tagged with its run. Field order is the order the file is
written in. Blocks that only some runs have (``repeats``, ``judge``, a privacy guard's figures)
are optional sub-models, left out of the file when absent: a writer dumps with
``exclude_unset``, so the file holds exactly what was computed, plus ``schema_version``.

Extending: add a field (a plain field with a default, or an optional sub-model) to the model
that owns it, set it where the figure is computed, bump nothing (a new optional field is
backwards compatible; bump :data:`SUMMARY_SCHEMA_VERSION` only when a field changes meaning or
is removed), then regenerate the published schema (``agbench schema --write docs``). Keys a
model does not declare are still accepted and kept (``extra="allow"``), so a file written by a
newer agbench reads; the tests assert the project's own writers declare every key they write.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agbench.config import Architecture
from agbench.status import Status

#: Version of the summary.json layout; files written before versioning read as version 0.
SUMMARY_SCHEMA_VERSION = 1


class ResultModel(BaseModel):
    """Base of every result model: undeclared keys are kept (files from newer writers read)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    def to_json_dict(self) -> dict[str, Any]:
        """The JSON document: what was set, in field order, enums as their values."""
        return self.model_dump(mode="json", exclude_unset=True)


class Distribution(ResultModel):
    """Percentiles and mean of one per-call figure (null without a sample)."""

    p50: float | None = None
    p95: float | None = None
    mean: float | None = None


class EndpointServing(ResultModel):
    """How one endpoint (local server or cloud) served a configuration's calls."""

    calls: int = 0
    ttft_s: Distribution = Field(default_factory=Distribution)
    output_tok_s: Distribution = Field(default_factory=Distribution)
    total_s: Distribution = Field(default_factory=Distribution)
    queue_s_mean: float | None = None
    errors: dict[str, int] = Field(default_factory=dict, description="error class -> calls")


class TimeBreakdown(ResultModel):
    """Seconds waiting on the local model, the cloud model, tools, and everything else."""

    local_model: float = 0.0
    cloud_model: float = 0.0
    tools: float = 0.0
    other: float = 0.0


class CategoryOutcome(ResultModel):
    tasks: int = 0
    success: int = 0
    success_rate: float | None = None


class CloudCostBreakdown(ResultModel):
    """USD by token kind, from the run's price table."""

    cached_input: float = 0.0
    uncached_input: float = 0.0
    output: float = 0.0


class CloudTokens(ResultModel):
    prompt: int = 0
    cached: int = 0
    completion: int = 0


class RepeatSpread(ResultModel):
    """``--repeat N``: the spread of the per-repeat success rates (agbench.metrics.repeats)."""

    repeats: int
    tasks: int
    attempts: int
    success_rate_by_repeat: list[float] = Field(default_factory=list)
    success_rate_mean: float | None = None
    success_rate_std: float | None = None
    success_rate_min: float | None = None
    success_rate_max: float | None = None
    success_rate_ci95: list[float] | None = None
    ci_method: str = ""
    pooled_wilson_ci95: list[float] | None = None
    tasks_always_solved: int = 0
    tasks_sometimes_solved: int = 0


class PrivacyGuardSummary(ResultModel):
    """``--privacy-guard``: what the guard kept from the cloud, how well its detector did against
    the declared items, and what it cost (agbench.metrics.privacy; docs/privacy.md)."""

    mode: str = Field(description="redact or block")
    detector: str = Field(description="declared or presidio")
    entities: list[str] = Field(default_factory=list, description="presidio entities; empty: all")
    threshold: float | None = None
    attempts: int = Field(default=0, ge=0, description="counted attempts with a guard line")
    calls: int = Field(default=0, ge=0, description="cloud calls the guard saw")
    exposure_ratio_unguarded: float = Field(
        default=0.0, ge=0, le=1, description="what the cloud would have seen without the guard"
    )
    sensitive_in_requests: int = Field(default=0, ge=0, description="distinct items the requests carried")
    recall: float | None = Field(default=None, ge=0, le=1)
    recall_by_kind: dict[str, float | None] = Field(
        default_factory=dict, description="declared kind -> recall"
    )
    precision: float | None = Field(default=None, ge=0, le=1)
    true_positive_by_kind: dict[str, int] = Field(default_factory=dict)
    false_positive_by_label: dict[str, int] = Field(
        default_factory=dict, description="detector label -> values"
    )
    redacted_spans: int = Field(default=0, ge=0)
    blocked_calls: int = Field(default=0, ge=0)
    blocked_attempts: int = Field(default=0, ge=0)
    failed_with_guard: int = Field(default=0, ge=0)
    success_cost: float | None = Field(
        default=None, description="unguarded success rate - guarded, where both runs are compared"
    )
    guard_ms_p50: float | None = None
    guard_ms_p99: float | None = None


#: Version of the ``intervals`` object (and of intervals.json); bumped when a field changes meaning.
INTERVAL_VERSION = 1
#: The interval's coverage: the 5th to the 95th percentile over the draws.
LEVEL = 0.9
IntervalKind = Literal["calibrated", "assumptions", "none"]


class MetricInterval(ResultModel):
    """One figure's 90 % interval over the draws."""

    p05: float
    p95: float
    p50: float | None = Field(
        default=None, description="the median over the draws: the point agbench validate scores"
    )
    draws: int = Field(ge=0, description="draws in which the figure had a value")
    point_inside: bool | None = Field(
        default=None, description="whether the point prediction lies in [p05, p95] (set in summary.json)"
    )


class PredictionIntervals(ResultModel):
    """The ``intervals`` object of one simulated configuration in summary.json."""

    version: int = INTERVAL_VERSION
    available: bool
    kind: IntervalKind = Field(
        description="calibrated: resampled calibration data; assumptions: the scenario's stated "
        "ranges (not a calibrated interval); none: no interval"
    )
    level: float = LEVEL
    draws: int = Field(default=0, ge=0)
    method: str = ""
    drawn: list[str] = Field(default_factory=list, description="inputs varied between draws")
    not_drawn: list[str] = Field(default_factory=list, description="inputs held at their point values")
    reason: str = Field(default="", description="why no interval is available")
    metrics: dict[str, MetricInterval] = Field(
        default_factory=dict, description="dotted summary key (time_breakdown_s.tools) -> interval"
    )


class ConfigurationSummary(ResultModel):
    """One device × architecture × concurrency of a run (DESIGN.md, "Metrics")."""

    source: str = "live"
    device: str
    architecture: Architecture
    concurrency: int = Field(ge=1)
    # outcomes (agbench.metrics.outcomes)
    tasks: int = Field(ge=0)
    success: int = Field(ge=0)
    success_rate: float | None = None
    suite_wall_s: float = Field(ge=0)
    goodput_per_h: float = Field(ge=0)
    mean_completion_s_common: float | None = None
    common_success_tasks: int = 0
    mean_wall_s: float | None = None
    failures: dict[Status, int] = Field(default_factory=dict, description="failure status -> counted tasks")
    by_category: dict[str, CategoryOutcome] = Field(default_factory=dict)
    time_breakdown_s: TimeBreakdown = Field(default_factory=TimeBreakdown, description="mean per task")
    time_breakdown_total_s: TimeBreakdown = Field(default_factory=TimeBreakdown)
    local_context_errors: int = 0
    model_calls: int = 0
    tool_calls: int = 0
    raw_score_all_tasks: float | None = None
    score_valid_tasks_only: float | None = None
    model_score_valid_tasks_only: float | None = None
    repeats: RepeatSpread | None = None
    # cloud cost and exposure (agbench.metrics.cost)
    cloud_cost_usd: float = 0.0
    cloud_cost_breakdown_usd: CloudCostBreakdown = Field(default_factory=CloudCostBreakdown)
    cloud_cost_successful_usd: float = 0.0
    cloud_cost_failed_usd: float = 0.0
    cloud_calls: int = 0
    cloud_tokens: CloudTokens = Field(default_factory=CloudTokens)
    sensitive_total: int = 0
    sensitive_exposed: int = 0
    exposure_ratio: float = Field(default=0.0, ge=0, le=1)
    privacy_guard: PrivacyGuardSummary | None = None  # agbench.metrics.privacy (--privacy-guard)
    # serving (agbench.metrics.serving); flat keys describe the local server
    serving: dict[str, EndpointServing] = Field(default_factory=dict, description="endpoint -> figures")
    ttft_p50_s: float | None = None
    output_tok_s_p50: float | None = None
    ttft_p95_s: float | None = None
    output_tok_s_p95: float | None = None
    cloud_ttft_p50_s: float | None = None
    cloud_output_tok_s_p50: float | None = None
    cloud_ttft_p95_s: float | None = None
    cloud_output_tok_s_p95: float | None = None
    context_errors_local: int = 0
    kv_peak_fraction: float | None = None
    kv_peak_cells: int | None = None
    kv_mean_fraction: float | None = None
    requests_waiting_peak: int | None = None
    server_samples: int = 0
    messages: dict[str, int] = Field(default_factory=dict, description="message kind -> count")
    tool_wall_s_total: float = 0.0
    tool_cpu_s_total: float = 0.0
    cpu_percent_peak: float | None = None
    mem_used_bytes_peak: int | None = None
    # energy (agbench.metrics.energy)
    energy_wh: float | None = None
    energy_wh_per_task: float | None = None
    energy_wh_per_success: float | None = None
    energy_source: str = ""
    energy_note: str = ""
    gpu_power_w_mean: float | None = None
    gpu_power_w_peak: float | None = None
    gpu_temp_c_peak: float | None = None
    # ``agbench sim --draws N`` (agbench.results.intervals): absent when no draws were asked for
    intervals: PredictionIntervals | None = None
    # set on the configurations of a comparison summary
    tag: str | None = None
    run_dir: str | None = None

    @property
    def key(self) -> tuple[str, str, int]:
        """(device, architecture, concurrency): what identifies the configuration in a run."""
        return (self.device, self.architecture.value, self.concurrency)

    def failure_count(self, status: Status | str) -> int:
        """Counted tasks that ended with ``status`` (0 when the file does not list it)."""
        return self.failures.get(Status(status), 0)


class Totals(ResultModel):
    """A run's figures over all its configurations."""

    tasks: int = 0
    success: int = 0
    failures: dict[Status, int] = Field(default_factory=dict)
    interrupted_attempts: int = 0
    attempts: int = 0
    raw_score_all_tasks: float | None = None
    score_valid_tasks_only: float | None = None
    model_score_valid_tasks_only: float | None = None


class BenchmarkScore(ResultModel):
    """One row of the README's score table (one category, every configuration together)."""

    name: str
    model_score: float | None = None
    passed: int = 0
    evaluated: int = 0
    tasks: int = 0
    grading_method: str = "unknown"


class TaskInfoEntry(ResultModel):
    id: str
    category: str
    description: str = ""
    grading_method: str = ""
    suite: str = ""


class RunSummary(ResultModel):
    """``summary.json`` of one run, live or simulated."""

    schema_version: int = Field(default=0, description="layout version; 0: written before versioning")
    source: str = "live"
    run_id: str = ""
    agent_kind: str = ""
    labels: list[str] = Field(default_factory=list, description="what every report must say")
    meta: dict[str, Any] = Field(default_factory=dict, description="run.json, secrets removed")
    configurations: list[ConfigurationSummary]
    totals: Totals = Field(default_factory=Totals)
    categories: list[str] = Field(default_factory=list)
    # added by the report writer (agbench.report.summary.load_run)
    run_dir: str | None = None
    suites: list[dict[str, Any]] | None = None
    task_info: dict[str, TaskInfoEntry] | None = None
    benchmark_scores: list[BenchmarkScore] | None = None
    judge: dict[str, Any] | None = Field(default=None, description="the LLM judge's settings and usage")

    def configuration(
        self, architecture: str, concurrency: int, device: str | None = None
    ) -> ConfigurationSummary:
        """The configuration of that architecture and concurrency (KeyError when absent)."""
        for conf in self.configurations:
            same_device = device is None or conf.device == device
            if conf.architecture == architecture and conf.concurrency == concurrency and same_device:
                return conf
        raise KeyError(f"no configuration {architecture} C={concurrency} in run {self.run_id or '?'}")


class ComparisonRun(ResultModel):
    """One run of a comparison summary."""

    tag: str
    run_dir: str
    source: str
    run_id: str = ""
    agent_kind: str = ""
    labels: list[str] = Field(default_factory=list)
    meta: dict[str, Any] = Field(default_factory=dict)
    totals: Totals = Field(default_factory=Totals)


class ComparisonSummary(ResultModel):
    """``summary.json`` of several runs side by side (``agbench report RUN_DIR RUN_DIR...``)."""

    schema_version: int = Field(default=0, description="layout version; 0: written before versioning")
    source: str
    comparison: Literal[True]
    sources: list[str] = Field(default_factory=list)
    agent_kind: str = ""
    labels: list[str] = Field(default_factory=list)
    runs: list[ComparisonRun] = Field(default_factory=list)
    configurations: list[ConfigurationSummary]


__all__ = [
    "INTERVAL_VERSION",
    "LEVEL",
    "SUMMARY_SCHEMA_VERSION",
    "BenchmarkScore",
    "CategoryOutcome",
    "CloudCostBreakdown",
    "CloudTokens",
    "ComparisonRun",
    "ComparisonSummary",
    "ConfigurationSummary",
    "Distribution",
    "EndpointServing",
    "IntervalKind",
    "MetricInterval",
    "PredictionIntervals",
    "PrivacyGuardSummary",
    "RepeatSpread",
    "ResultModel",
    "RunSummary",
    "TaskInfoEntry",
    "TimeBreakdown",
    "Totals",
]
