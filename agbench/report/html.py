"""``summary.html``: a static page (no script, no CDN, no network) with inline SVG figures.

The agent kind and labels ("cloud stand-in", "mock provider", "simulated") sit in a banner
at the top: figures from a replay or oracle agent, or from a stand-in cloud, must never be
mistaken for a real model's.

This module computes what the page shows (the figures, each cell's text); the layout is
templates/summary.html.j2, which escapes every value (agbench/report/templating.py), so no
text from a run (a task name, an answer, a label) can become markup.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from agbench.hardware import HardwareInventory
from agbench.metrics import config_of, only_counted
from agbench.metrics.energy import energy_notes
from agbench.metrics.outcomes import CONFIG_KEYS, counted_attempts
from agbench.metrics.repeats import repeats_of
from agbench.report import plots
from agbench.report.privacy_html import privacy_section
from agbench.report.repeats_html import repeats_section
from agbench.report.suite_info import SuiteInfo, TaskInfo
from agbench.report.summary import RunReport, row_methods
from agbench.report.templating import render_template, svg
from agbench.results.intervals import HEADLINE_METRICS, interval_cell, interval_note
from agbench.results.summary import (
    BenchmarkScore,
    ComparisonSummary,
    ConfigurationSummary,
    RunSummary,
    Totals,
)
from agbench.status import MODEL_FAILURES, Status

_META_CHARS = 400
_REASON_CHARS = 240


def _fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}g}" if abs(value) < 1e4 else f"{value:,.0f}"
    return str(value)


def _pct(value: Any) -> str:
    return "—" if value is None else f"{100 * float(value):.1f}%"


Cards = list[tuple[str, str]]


def _cards(totals: Totals, configs: Sequence[ConfigurationSummary]) -> Cards:
    best = max(configs, key=lambda c: c.goodput_per_h)
    return [
        ("tasks (counted)", str(totals.tasks)),
        ("successes", str(totals.success)),
        ("raw score, all tasks", _pct(totals.raw_score_all_tasks)),
        ("score, valid tasks only", _pct(totals.score_valid_tasks_only)),
        ("model score, valid tasks only", _pct(totals.model_score_valid_tasks_only)),
        (f"best goodput ({best.architecture} C={best.concurrency})", f"{best.goodput_per_h:.3g} /h"),
        ("cloud cost (agent)", f"${sum(c.cloud_cost_usd for c in configs):.4f}"),
        ("interrupted attempts (not counted)", str(totals.interrupted_attempts)),
    ]


_TABLE_COLUMNS: list[tuple[str, str, Callable[[Any], str]]] = [
    ("tasks", "tasks", _fmt),
    ("success", "success", _fmt),
    ("success_rate", "rate", _pct),
    ("suite_wall_s", "suite s", _fmt),
    ("goodput_per_h", "goodput /h", _fmt),
    ("mean_completion_s_common", "mean s (common)", _fmt),
    ("cloud_cost_usd", "cloud $", lambda v: f"{v:.4f}"),
    ("cloud_calls", "cloud calls", _fmt),
    ("exposure_ratio", "exposure", _pct),
    ("ttft_p50_s", "local TTFT p50 s", _fmt),
    ("output_tok_s_p50", "local tok/s p50", lambda v: "n/a" if v is None else _fmt(v)),  # no token count
    ("cloud_ttft_p50_s", "cloud TTFT p50 s", _fmt),
    ("kv_peak_fraction", "KV peak", _pct),
    ("local_context_errors", "local ctx errors", _fmt),
    ("energy_wh_per_task", "Wh / task", _fmt),
    ("energy_wh_per_success", "Wh / success", _fmt),
    ("gpu_power_w_mean", "GPU W mean", _fmt),
]


def _cell(c: ConfigurationSummary, key: str, fmt: Callable[[Any], str]) -> str:
    """A figure, with its 90 % interval where a simulated configuration has one."""
    if c.intervals is not None and c.intervals.available and key in HEADLINE_METRICS:
        return interval_cell(c, key, fmt) or fmt(getattr(c, key, None))
    return fmt(getattr(c, key, None))


def _interval_notes(configs: Sequence[ConfigurationSummary]) -> list[str]:
    """What the intervals in the table are (each distinct note once), what they hold fixed,
    and the legend of the mark a point outside its own interval gets."""
    notes = list(dict.fromkeys(n for c in configs if (n := interval_note(c))))
    held = sorted({x for c in configs if c.intervals is not None for x in c.intervals.not_drawn})
    if held:
        notes.append("not drawn: " + "; ".join(held))
    if any(c.intervals is not None and c.intervals.available for c in configs):
        notes.append("[lo, hi]: 5th-95th percentile over the draws; * the point lies outside it")
    return notes


def _config_table(configs: Sequence[ConfigurationSummary], tagged: bool) -> dict[str, Any]:
    rows = []
    for c in configs:
        lead = ([plots.tag_of(c)] if tagged else []) + [c.device, c.architecture, c.concurrency]
        rows.append({"lead": lead, "cells": [_cell(c, key, fmt) for key, _, fmt in _TABLE_COLUMNS]})
    return {
        "lead_heads": (["run"] if tagged else []) + ["device", "arch", "C"],
        "heads": [title for _, title, _ in _TABLE_COLUMNS],
        "rows": rows,
        "interval_notes": _interval_notes(configs),
    }


def _failures_table(configs: Sequence[ConfigurationSummary], tagged: bool) -> dict[str, Any]:
    statuses = list(configs[0].failures)
    rows = [
        {
            "label": plots.config_label(c, True, tagged),
            "success": c.success,
            "counts": [c.failures[s] for s in statuses],
        }
        for c in configs
    ]
    return {"statuses": statuses, "rows": rows}


def _meta_rows(meta: dict[str, Any]) -> list[tuple[str, str]]:
    rows = []
    for key in sorted(meta):
        value = meta[key]
        text = json.dumps(value, default=str) if isinstance(value, dict | list) else str(value)
        if len(text) > _META_CHARS:  # prompts and task orders are long: summary.json has them whole
            text = text[:_META_CHARS] + f"… ({len(text):,} characters; see summary.json)"
        rows.append((key, text))
    return rows


def _pick(meta: dict[str, Any], *path: str) -> Any:
    value: Any = meta
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def setup_rows(meta: dict[str, Any]) -> list[tuple[str, str]]:
    """Target, judge, sandbox and asset metadata of a run, one (what, value) pair each."""
    local = meta.get("local") if isinstance(meta.get("local"), dict) else {}
    cloud = meta.get("cloud") if isinstance(meta.get("cloud"), dict) else {}
    judge = meta.get("judge") if isinstance(meta.get("judge"), dict) else {}
    rows: list[tuple[str, str]] = []
    if local:
        where = local.get("url") or ("managed llama-server" if local.get("managed") else "—")
        rows.append(("target: local model", f"{local.get('model') or '—'} at {where}"))
    elif meta.get("model"):
        rows.append(("target: model", str(meta["model"])))
    if cloud:
        kind = "stand-in (local llama-server)" if cloud.get("standin") else str(cloud.get("url") or "—")
        rows.append(("target: cloud model", f"{cloud.get('model') or '—'} at {kind}"))
    if meta.get("provider"):
        rows.append(("target: provider", str(meta["provider"])))
    if judge:
        what = str(judge.get("provider") or "none")
        if judge.get("model"):
            what += f", model {judge['model']}"
        if judge.get("url"):
            what += f" at {judge['url']}"
        rows.append(("judge", what))
        if judge.get("exposure_judge"):
            rows.append(("exposure judge", "on (reported beside the deterministic matcher)"))
    else:
        rows.append(("judge", "none (programmatic verifiers only)"))
    backend = meta.get("backend") or _pick(meta, "options", "backend")
    rows.append(("sandbox", str(backend or "—")))
    parser = meta.get("tool_call_parser")
    if parser:
        rows.append(("tool-call parser", str(parser)))
    tasks_root = _pick(meta, "options", "tasks_root")
    rows.append(("task assets", str(tasks_root or "the repository's tasks/ folder (built-in suite)")))
    host = meta.get("host") if isinstance(meta.get("host"), dict) else {}
    if host:
        rows.append(
            ("host", f"{host.get('hostname', '?')}, {host.get('cpus', '?')} CPUs, {host.get('platform', '')}")
        )
    rows += hardware_rows(meta)
    return rows


def hardware_rows(meta: dict[str, Any]) -> list[tuple[str, str]]:
    """One row per device of the run's hardware inventory, and its energy sources."""
    rows: list[tuple[str, str]] = []
    hardware = meta.get("hardware")
    for device, data in sorted(hardware.items() if isinstance(hardware, dict) else []):
        if not isinstance(data, dict):
            continue
        inv = HardwareInventory.from_dict(data)
        rows.append((f"hardware: {device}", inv.summary_line()))
        sources = "; ".join(f"{k}: {v}" for k, v in sorted(inv.energy_sources.items()))
        if sources:
            rows.append((f"energy sources: {device}", sources))
    return rows


def _energy_note(configs: Sequence[ConfigurationSummary]) -> str:
    return "; ".join(energy_notes(list(configs)))


def _scores_rows(rows: Sequence[BenchmarkScore]) -> list[dict[str, Any]]:
    return [
        {
            "name": r.name,
            "score": _pct(r.model_score),
            "passed": r.passed,
            "evaluated": r.evaluated,
            "method": r.grading_method,
        }
        for r in rows
    ]


def _status_class(status: str) -> str:
    if status == Status.SUCCESS.value:
        return "st-success"
    return "st-fail" if status in {s.value for s in MODEL_FAILURES} else "st-setup"


def _task_rows(report: RunReport, tasks: dict[str, TaskInfo]) -> list[dict[str, Any]]:
    """Every counted (configuration, task) result, named as the suite names it."""
    counted = counted_attempts(report.tables["task_runs"], repeats_of(report.summary.meta))
    info = SuiteInfo(tasks=tasks)
    counted["method"] = row_methods(counted, info)
    rows = []
    ordered = counted.sort_values(["task", "device", "architecture", "concurrency"], kind="stable")
    for r in ordered.to_dict(orient="records"):
        task = str(r["task"])
        described = tasks.get(task)
        reason = str(r.get("reason") or "")
        if len(reason) > _REASON_CHARS:
            reason = reason[:_REASON_CHARS] + "…"
        status = str(r["status"])
        rows.append(
            {
                "configuration": f"{r['device']} {r['architecture']} C={r['concurrency']}",
                "task": task,
                "description": described.description if described else "",
                "category": r["category"],
                "method": r["method"] or "—",
                "status": status,
                "status_class": _status_class(status),
                "reward": _fmt(float(r["reward"])),
                "wall_s": _fmt(float(r["wall_s"])),
                "capability": "full" if bool(r.get("full_capability", True)) else "partial",
                "reason": reason,
            }
        )
    return rows


def _judge_view(judge: dict[str, Any]) -> dict[str, Any]:
    """The judge's own figures: rows it graded, failures (never the model's), usage and cost
    (apart from the agents' cloud cost), and the exposure judge beside the matcher."""
    cards = [
        ("judged rows", str(judge.get("judged_rows", 0))),
        ("judge parse errors (failed_grader)", str(judge.get("parse_errors", 0))),
        ("judge transport errors", str(judge.get("transport_errors", 0))),
        ("repaired replies", str(judge.get("repaired", 0))),
        ("judge calls", str(judge.get("calls", 0))),
        ("judge cost", f"${float(judge.get('cost_usd', 0.0)):.4f}"),
    ]
    methods = ", ".join(f"{k or '—'}: {v}" for k, v in (judge.get("rows_by_method") or {}).items())
    exposure = judge.get("exposure")
    figures = None
    if isinstance(exposure, dict):
        figures = [
            f"{exposure.get('attempts_judged', 0)} / {exposure.get('attempts', 0)}",
            exposure.get("both", 0),
            exposure.get("matcher_only", 0),
            exposure.get("judge_only", 0),
            exposure.get("neither", 0),
            _pct(exposure.get("agreement")),
        ]
    return {"cards": cards, "methods": methods or "—", "exposure": figures}


def _credits(suites: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for suite in suites:
        facts = [
            ("strict status", suite.get("strict_status")),
            ("licence", suite.get("licence")),
            ("citation", suite.get("citation")),
        ]
        credit = [
            {
                "name": c.get("name"),
                "role": c.get("role", ""),
                "citation": c.get("citation", "—"),
                "licence": c.get("licence", "—"),
            }
            for c in suite.get("credit", []) or []
        ]
        out.append(
            {
                "name": suite.get("name") or suite.get("id"),
                "id": suite.get("id"),
                "summary": suite.get("summary"),
                "facts": [(k, v) for k, v in facts if v],
                "credit": credit,
            }
        )
    return out


def _per_config(
    reports: Sequence[tuple[str, RunReport]], table: str, tagged: bool
) -> list[tuple[str, pd.DataFrame]]:
    """One (label, rows) pair per configuration of every run, counted attempts only."""
    out: list[tuple[str, pd.DataFrame]] = []
    for tag, report in reports:
        frame = report.tables.get(table)
        if frame is None or not len(frame):
            continue
        if "attempt" in frame:
            counted = counted_attempts(report.tables["task_runs"], repeats_of(report.summary.meta))
            frame = only_counted(frame, counted)
        configs = report.summary.configurations
        devices = {c.device for c in configs}
        groups = {config_of(key): rows for key, rows in frame.groupby(CONFIG_KEYS, sort=False, observed=True)}
        for conf in configs:  # the summary's order: LO, CO, HCL, HLL by concurrency
            rows = groups.get(conf.key)
            if rows is not None:
                labelled = conf.model_copy(update={"tag": tag})
                out.append((plots.config_label(labelled, len(devices) > 1, tagged), rows))
    return out


def render(
    summary: RunSummary | ComparisonSummary,
    reports: Sequence[tuple[str, RunReport]],
    timeline: str | None = None,
) -> str:
    """The whole page for one run's summary, or for a comparison summary; ``timeline`` is
    the static SVG of the busiest configuration's timeline (``report/timeline_svg.py``)."""
    configs = summary.configurations
    tagged = isinstance(summary, ComparisonSummary)
    title = "agbench comparison" if tagged else f"agbench run {getattr(summary, 'run_id', '')}".strip()
    calls = _per_config(reports, "model_calls", tagged)
    context: dict[str, Any] = {
        "title": title,
        "runs": None,
        "radar_note": "success rate per task category, one polygon per configuration"
        if len({cat for c in configs for cat in c.by_category}) >= 3
        else "fewer than three categories in this run: see the score table",
        "scores": None,
        "config_table": _config_table(configs, tagged),
        "energy_note": _energy_note(configs),
        "repeats": repeats_section(configs),  # --repeat N: spread and confidence intervals
        "privacy": privacy_section(configs),  # --privacy-guard: exposure with and without, recall
        "failures": _failures_table(configs, tagged),
        "kv_note": "no server samples were recorded" if not any(c.server_samples for c in configs) else "",
        "timeline": svg(timeline),
        "task_rows": None,
        "figures": {
            "radar": svg(plots.category_radar(configs)),
            "success": svg(plots.success_heatmap(configs)),
            "category": svg(plots.category_heatmap(configs)),
            "goodput": svg(plots.concurrency_lines(configs)),
            "breakdown": svg(plots.time_breakdown(configs)),
            "cost": svg(plots.cloud_cost(configs)),
            "exposure": svg(plots.exposure(configs)),
            "failures": svg(plots.failure_taxonomy(configs)),
            "ttft": svg(plots.distributions(calls, "ttft_s", "seconds", "TTFT per model call")),
            "speed": svg(
                plots.distributions(
                    calls, "output_tok_s", "generated tokens / s", "output tok/s per model call"
                )
            ),
            "kv": svg(plots.kv_usage(_per_config(reports, "server_samples", tagged))),
        },
    }
    if isinstance(summary, ComparisonSummary):
        context["runs"] = [
            {
                "tag": run.tag,
                "run_dir": run.run_dir,
                "agent_kind": run.agent_kind,
                "labels": run.labels,
                "source": run.source,
                "cards": _cards(run.totals, [c for c in configs if c.tag == run.tag]),
            }
            for run in summary.runs
        ]
        seen: dict[str, dict[str, Any]] = {}
        for _tag, report in reports:
            for suite in report.summary.suites or []:
                seen.setdefault(str(suite.get("id")), suite)
        context["credits"] = _credits(list(seen.values()))
        context["meta_tables"] = [(run.tag, _meta_rows(run.meta)) for run in summary.runs]
    else:
        context |= {
            "agent_kind": summary.agent_kind,
            "labels": summary.labels,
            "source": summary.source,
            "setup": setup_rows(summary.meta),
            "run_cards": _cards(summary.totals, configs),
            "judge": _judge_view(summary.judge) if summary.judge else None,
            "credits": _credits(summary.suites or []),
            "meta_tables": [(None, _meta_rows(summary.meta))],
        }
        if summary.benchmark_scores:
            context["scores"] = _scores_rows(summary.benchmark_scores)
        if reports:
            tasks = {k: TaskInfo(**v.model_dump()) for k, v in (summary.task_info or {}).items()}
            context["task_rows"] = _task_rows(reports[0][1], tasks)
    return render_template("summary.html.j2", **context)


__all__ = ["render"]
