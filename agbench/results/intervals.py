"""Prediction intervals of simulated figures: typed, versioned, and honest about their source.

A simulated figure is one run of a model whose inputs are themselves uncertain: server rates
fitted from a finite sample, or a paper device's efficiencies taken from the nearest published
benchmark. ``agbench sim --draws N`` repeats the simulation over N draws of those inputs and
writes the spread of every figure beside the point prediction, so a reader sees whether a
difference between two configurations is larger than what the inputs already allow.

The run directory keeps the draws' percentiles in ``intervals.json`` (:class:`RunIntervals`);
the report's loader lays them onto ``summary.json``'s configurations (:func:`attach`) as the
optional ``intervals`` object (:class:`PredictionIntervals`), so a summary written without
draws is byte for byte what it was. An interval is never made up: where nothing is drawn the
object says ``available: false`` and why.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import Field, ValidationError

from agbench.errors import RunDirError
from agbench.results.summary import (
    INTERVAL_VERSION,
    LEVEL,
    ConfigurationSummary,
    IntervalKind,
    MetricInterval,
    PredictionIntervals,
    ResultModel,
    RunSummary,
)

INTERVALS_FILE = "intervals.json"
#: Keys that name a configuration rather than measure it: no interval.
_IDENTITY = frozenset({"source", "device", "architecture", "concurrency", "tasks", "tag", "run_dir"})


class ConfigurationIntervals(ResultModel):
    device: str
    architecture: str
    concurrency: int = Field(ge=1)
    intervals: PredictionIntervals


class RunIntervals(ResultModel):
    """``intervals.json`` of a simulated run directory (``agbench sim --draws N``)."""

    schema_version: int = INTERVAL_VERSION
    configurations: list[ConfigurationIntervals] = Field(default_factory=list)

    def for_key(self, key: tuple[str, str, int]) -> PredictionIntervals | None:
        for entry in self.configurations:
            if (entry.device, entry.architecture, entry.concurrency) == key:
                return entry.intervals
        return None


def read_intervals(run_dir: Path) -> RunIntervals | None:
    """A run directory's intervals.json (None when the run was simulated without draws);
    a malformed file is a one-line RunDirError, never a silently missing interval."""
    path = run_dir / INTERVALS_FILE
    if not path.is_file():
        return None
    try:
        return RunIntervals.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, json.JSONDecodeError, ValidationError) as exc:
        raise RunDirError(f"{path}: {str(exc).splitlines()[0]}") from None


def metric_values(conf: ConfigurationSummary) -> dict[str, float]:
    """Every numeric figure of a configuration under its dotted key (``failures.timeout``,
    ``serving.local.ttft_s.p50``): the same names the intervals carry."""
    out: dict[str, float] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(f"{prefix}.{k}" if prefix else str(k), v)
        elif isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            out[prefix] = float(value)

    data = conf.model_dump(mode="json", exclude={"intervals"})
    for key, value in data.items():
        if key not in _IDENTITY:
            walk(key, value)
    return out


def interval_metrics(draws: Sequence[ConfigurationSummary]) -> dict[str, MetricInterval]:
    """Per figure, the 5th, 50th and 95th percentile over the draws that have it."""
    values: dict[str, list[float]] = {}
    for conf in draws:
        for name, v in metric_values(conf).items():
            values.setdefault(name, []).append(v)
    return {
        name: MetricInterval(
            p05=float(np.percentile(v, 5)),
            p50=float(np.median(v)),
            p95=float(np.percentile(v, 95)),
            draws=len(v),
        )
        for name, v in sorted(values.items())
    }


def unavailable(reason: str) -> PredictionIntervals:
    """The plain statement that a configuration has no interval, and why."""
    return PredictionIntervals(available=False, kind="none", reason=reason)


def attach(summary: RunSummary, intervals: RunIntervals) -> None:
    """Lay a run's intervals onto its summary's configurations, marking each figure whose
    point prediction falls outside its own interval (a draw set too small, or a point that
    sits at an edge of what its inputs allow: the reader should know)."""
    for conf in summary.configurations:
        found = intervals.for_key(conf.key)
        if found is None:
            continue
        own = found.model_copy(deep=True)
        point = metric_values(conf)
        for name, band in own.metrics.items():
            if name in point:
                band.point_inside = band.p05 - 1e-12 <= point[name] <= band.p95 + 1e-12
        conf.intervals = own


def plain_number(value: float) -> str:
    """The report's own number style: three significant digits, thousands grouped from 10^4."""
    return f"{value:.3g}" if abs(value) < 1e4 else f"{value:,.0f}"


def interval_cell(conf: ConfigurationSummary, metric: str, fmt: Callable[[float], str] = plain_number) -> str:
    """``value [lo, hi]`` for a table cell: the point prediction and its 90 % interval, each
    through ``fmt`` (a report passes its own formatter, so the cell reads like its neighbours).
    ``value`` alone without an interval; ``value [assumed lo, hi]`` when the range is the
    scenario's stated assumptions rather than calibration data (the two must not look alike);
    a trailing ``*`` when the point lies outside its own interval. A configuration without the
    figure gives an empty string."""
    point = metric_values(conf).get(metric)
    if point is None:
        return ""
    text = fmt(point)
    iv = conf.intervals
    if iv is None or not iv.available or metric not in iv.metrics:
        return text
    band = iv.metrics[metric]
    tag = "assumed " if iv.kind == "assumptions" else ""
    star = "*" if band.point_inside is False else ""
    return f"{text} [{tag}{fmt(band.p05)}, {fmt(band.p95)}]{star}"


#: The figures a report's configuration table shows with their intervals (the summary has
#: intervals on every numeric figure; these are the headline ones).
HEADLINE_METRICS = (
    "suite_wall_s",
    "goodput_per_h",
    "mean_completion_s_common",
    "success",
    "cloud_cost_usd",
    "ttft_p50_s",
    "output_tok_s_p50",
    "kv_peak_fraction",
    "local_context_errors",
    "energy_wh_per_task",
)


def interval_table(
    configurations: Sequence[ConfigurationSummary], metrics: Sequence[str] = HEADLINE_METRICS
) -> list[dict[str, str]]:
    """One row per configuration: ``device``, ``architecture``, ``concurrency``, a
    :func:`interval_cell` per metric, and ``note`` (:func:`interval_note`): the data a report
    needs to show simulated figures with their ranges."""
    rows: list[dict[str, str]] = []
    for conf in configurations:
        row = {
            "device": conf.device,
            "architecture": conf.architecture.value,
            "concurrency": str(conf.concurrency),
        }
        row |= {m: interval_cell(conf, m) for m in metrics}
        row["note"] = interval_note(conf)
        rows.append(row)
    return rows


def interval_note(conf: ConfigurationSummary) -> str:
    """One line a report prints under a table with interval cells: what the range is."""
    iv = conf.intervals
    if iv is None:
        return ""
    if not iv.available:
        return f"no interval: {iv.reason}"
    return f"{int(iv.level * 100)} % interval over {iv.draws} draws; {iv.method}"


__all__ = [
    "HEADLINE_METRICS",
    "INTERVALS_FILE",
    "INTERVAL_VERSION",
    "LEVEL",
    "ConfigurationIntervals",
    "IntervalKind",
    "MetricInterval",
    "PredictionIntervals",
    "RunIntervals",
    "attach",
    "interval_cell",
    "interval_metrics",
    "interval_note",
    "interval_table",
    "metric_values",
    "plain_number",
    "read_intervals",
    "unavailable",
]
