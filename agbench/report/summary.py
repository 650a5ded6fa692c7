"""``summary.json``: one run's summary, or several runs side by side.

A run's summary is ``agbench.metrics.summarize`` over its trace tables plus its run metadata;
a comparison lists every run's configurations together, each tagged with the run and source
it came from, so live and simulated figures sit on one page and in one JSON file.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from agbench.metrics import read_tables, summarize
from agbench.metrics.outcomes import counted_attempts, scores
from agbench.metrics.privacy import add_guard_figures, read_guard_lines, with_success_cost
from agbench.metrics.repeats import repeats_of
from agbench.report.judgements import judge_summary, read_judgements, with_judgements
from agbench.report.suite_info import SuiteInfo, suite_info
from agbench.results.intervals import attach, read_intervals
from agbench.results.summary import (
    SUMMARY_SCHEMA_VERSION,
    BenchmarkScore,
    ComparisonRun,
    ComparisonSummary,
    ResultModel,
    RunSummary,
    TaskInfoEntry,
)
from agbench.status import INVALID_FOR_VALID_SCORE, Status
from agbench.store import RunStore

_INVALID = {s.value for s in INVALID_FOR_VALID_SCORE}


@dataclass
class RunReport:
    """What a report is drawn from: the run's directory, summary and trace tables."""

    run_dir: Path
    summary: RunSummary
    tables: dict[str, pd.DataFrame]


def load_run(run_dir: Path) -> RunReport:
    """Open, compact if needed, and summarize one run (one-line RunDirError on bad input)."""
    store = RunStore.open(run_dir)
    meta = store.meta()
    tables = read_tables(store)
    summary = summarize(tables, meta)
    summary.run_dir = str(run_dir)
    repeats = repeats_of(meta)
    counted = counted_attempts(tables["task_runs"], repeats)
    info = suite_info(meta, sorted({str(t) for t in counted["task"]}))
    summary.suites = info.suites
    summary.task_info = {
        k: TaskInfoEntry.model_validate(dataclasses.asdict(v)) for k, v in sorted(info.tasks.items())
    }
    lines = read_judgements(run_dir)
    tables["task_runs"] = with_judgements(tables["task_runs"], lines)
    counted = counted_attempts(tables["task_runs"], repeats)
    summary.benchmark_scores = benchmark_scores(counted, info)
    judge = judge_summary(meta, lines)
    if judge is not None:
        summary.judge = judge
    add_guard_figures(summary, read_guard_lines(run_dir), counted)  # --privacy-guard runs
    intervals = read_intervals(run_dir)  # agbench sim --draws N
    if intervals is not None:
        attach(summary, intervals)
    return RunReport(run_dir=run_dir, summary=summary, tables=tables)


def row_methods(counted: pd.DataFrame, info: SuiteInfo) -> pd.Series:
    """Each counted row's grading method: the row's own when it recorded one, else its task's."""
    by_task = (
        counted["task"].astype(str).map(lambda t: info.tasks[t].grading_method if t in info.tasks else "")
    )
    if "grading_method" in counted:
        own = counted["grading_method"].fillna("").astype(str)
        return own.where(own != "", by_task)
    return by_task


def benchmark_scores(counted: pd.DataFrame, info: SuiteInfo) -> list[BenchmarkScore]:
    """The README's score table, one row per category (every configuration of the run together):
    name, model score, passed / evaluated (model-valid rows), grading methods."""
    out: list[BenchmarkScore] = []
    methods = row_methods(counted, info)
    for category, rows in counted.groupby(counted["category"].astype(str), sort=True):
        full = ~rows["status"].isin(_INVALID) & rows["full_capability"].fillna(False).astype(bool)
        passed = int((full & (rows["status"] == Status.SUCCESS.value)).sum())
        out.append(
            BenchmarkScore(
                name=str(category),
                model_score=scores(rows)["model_score_valid_tasks_only"],
                passed=passed,
                evaluated=int(full.sum()),
                tasks=int(rows["task"].nunique()),
                grading_method=", ".join(sorted({m for m in methods[rows.index] if m})) or "unknown",
            )
        )
    return out


def json_safe(value: Any) -> Any:
    """Replace NaN / infinity (invalid JSON) with null, recursively."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


def write_json(summary: ResultModel | dict[str, Any], path: Path) -> Path:
    """Write a result model (or a plain document) as JSON, atomically; NaN becomes null."""
    document = summary.to_json_dict() if isinstance(summary, ResultModel) else summary
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(json_safe(document), indent=2, allow_nan=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def run_tags(reports: list[RunReport]) -> list[str]:
    """A short tag per run: its source, qualified by its directory name when sources repeat."""
    sources = [r.summary.source for r in reports]
    repeats = Counter(sources)
    return [s if repeats[s] == 1 else f"{s}:{r.run_dir.name}" for s, r in zip(sources, reports, strict=True)]


def comparison_summary(reports: list[RunReport]) -> ComparisonSummary:
    """Several runs side by side: every configuration tagged with its run and source."""
    configurations = []
    runs: list[ComparisonRun] = []
    for tag, report in zip(run_tags(reports), reports, strict=True):
        s = report.summary
        runs.append(
            ComparisonRun(
                tag=tag,
                run_dir=str(report.run_dir),
                source=s.source,
                run_id=s.run_id,
                agent_kind=s.agent_kind,
                labels=s.labels,
                meta=s.meta,
                totals=s.totals,
            )
        )
        for conf in s.configurations:
            configurations.append(conf.model_copy(update={"tag": tag, "run_dir": str(report.run_dir)}))
    with_success_cost(configurations)  # a guarded run beside an unguarded one: what the guard cost
    sources = sorted({r.summary.source for r in reports})
    return ComparisonSummary(
        schema_version=SUMMARY_SCHEMA_VERSION,
        source=sources[0] if len(sources) == 1 else "comparison",
        comparison=True,
        sources=sources,
        agent_kind=",".join(sorted({r.summary.agent_kind for r in reports})),
        labels=sorted({label for r in reports for label in r.summary.labels}),
        runs=runs,
        configurations=configurations,
    )


__all__ = [
    "RunReport",
    "benchmark_scores",
    "comparison_summary",
    "json_safe",
    "load_run",
    "row_methods",
    "run_tags",
    "write_json",
]
