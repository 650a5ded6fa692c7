"""``summary.html``: a static page (no script, no CDN, no network) with inline SVG figures.

The agent kind and labels ("cloud stand-in", "mock provider", "simulated") sit in a banner
at the top: figures from a replay or oracle agent, or from a stand-in cloud, must never be
mistaken for a real model's.
"""

from __future__ import annotations

import html
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
from agbench.results.summary import (
    BenchmarkScore,
    ComparisonSummary,
    ConfigurationSummary,
    RunSummary,
    Totals,
)
from agbench.status import MODEL_FAILURES, Status

_META_CHARS = 400
_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:24px auto;max-width:1200px;color:#222;padding:0 16px}
h1{margin-bottom:4px} h2{border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:32px}
.banner{background:#fff4e0;border:1px solid #e0a040;border-radius:6px;padding:10px 14px;margin:12px 0;font-size:15px}
.label{display:inline-block;background:#e0a040;color:#fff;border-radius:4px;padding:1px 8px;margin:0 4px;font-size:13px}
.cards{display:flex;flex-wrap:wrap;gap:12px}
.card{border:1px solid #ccc;border-radius:8px;padding:10px 14px;min-width:140px}
.card .v{font-size:22px;font-weight:600} .card .k{font-size:12px;color:#666}
table{border-collapse:collapse;font-size:12px;margin:8px 0} td,th{border:1px solid #ddd;padding:3px 6px;text-align:right}
th{background:#f4f4f4} td.l,th.l{text-align:left}
figure{margin:12px 0} svg{max-width:100%;height:auto}
td.reason{max-width:420px;white-space:normal;text-align:left;font-size:11px;color:#444}
.st-success{color:#1a7f37} .st-fail{color:#b42318} .st-setup{color:#9a6700}
dl.credits dt{font-weight:600;margin-top:8px} dl.credits dd{margin:2px 0 0 16px;font-size:13px}
"""
# No script, and nothing may load from anywhere: the browser itself refuses any fetch.
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
_REASON_CHARS = 240


def _e(value: Any) -> str:
    return html.escape(str(value))


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


def _card(key: str, value: str) -> str:
    return f'<div class="card"><div class="v">{_e(value)}</div><div class="k">{_e(key)}</div></div>'


def _cards(totals: Totals, configs: Sequence[ConfigurationSummary]) -> str:
    best = max(configs, key=lambda c: c.goodput_per_h)
    cards = [
        _card("tasks (counted)", str(totals.tasks)),
        _card("successes", str(totals.success)),
        _card("raw score, all tasks", _pct(totals.raw_score_all_tasks)),
        _card("score, valid tasks only", _pct(totals.score_valid_tasks_only)),
        _card("model score, valid tasks only", _pct(totals.model_score_valid_tasks_only)),
        _card(
            f"best goodput ({best.architecture} C={best.concurrency})",
            f"{best.goodput_per_h:.3g} /h",
        ),
        _card("cloud cost (agent)", f"${sum(c.cloud_cost_usd for c in configs):.4f}"),
        _card("interrupted attempts (not counted)", str(totals.interrupted_attempts)),
    ]
    return '<div class="cards">' + "".join(cards) + "</div>"


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


def _config_table(configs: Sequence[ConfigurationSummary], tagged: bool) -> str:
    head = (["run"] if tagged else []) + ["device", "arch", "C"]
    cells = "".join(f'<th class="l">{_e(h)}</th>' for h in head)
    cells += "".join(f"<th>{_e(title)}</th>" for _, title, _ in _TABLE_COLUMNS)
    rows = [f"<tr>{cells}</tr>"]
    for c in configs:
        lead = ([plots.tag_of(c)] if tagged else []) + [c.device, c.architecture, c.concurrency]
        row = "".join(f'<td class="l">{_e(v)}</td>' for v in lead)
        row += "".join(f"<td>{_e(fmt(getattr(c, key, None)))}</td>" for key, _, fmt in _TABLE_COLUMNS)
        rows.append(f"<tr>{row}</tr>")
    return "<table>" + "".join(rows) + "</table>"


def _failures_table(configs: Sequence[ConfigurationSummary], tagged: bool) -> str:
    statuses = list(configs[0].failures)
    head = "".join(f"<th>{_e(s)}</th>" for s in statuses)
    rows = [f'<tr><th class="l">configuration</th><th>success</th>{head}</tr>']
    for c in configs:
        label = plots.config_label(c, True, tagged)
        row = "".join(f"<td>{c.failures[s]}</td>" for s in statuses)
        rows.append(f'<tr><td class="l">{_e(label)}</td><td>{c.success}</td>{row}</tr>')
    return "<table>" + "".join(rows) + "</table>"


def _meta_table(meta: dict[str, Any]) -> str:
    rows = []
    for key in sorted(meta):
        value = meta[key]
        text = json.dumps(value, default=str) if isinstance(value, dict | list) else str(value)
        if len(text) > _META_CHARS:  # prompts and task orders are long: summary.json has them whole
            text = text[:_META_CHARS] + f"… ({len(text):,} characters; see summary.json)"
        rows.append(f'<tr><th class="l">{_e(key)}</th><td class="l">{_e(text)}</td></tr>')
    return "<table>" + "".join(rows) + "</table>"


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
    notes = energy_notes(list(configs))
    if not notes:
        return ""
    return "<p><i>energy: " + _e("; ".join(notes)) + "</i></p>"


def _setup_table(meta: dict[str, Any]) -> str:
    rows = "".join(
        f'<tr><th class="l">{_e(k)}</th><td class="l">{_e(v)}</td></tr>' for k, v in setup_rows(meta)
    )
    return f"<table>{rows}</table>"


def _scores_table(rows: Sequence[BenchmarkScore]) -> str:
    head = '<tr><th class="l">benchmark</th><th>model score</th><th>passed / evaluated</th><th class="l">grading method</th></tr>'
    body = "".join(
        f'<tr><td class="l">{_e(r.name)}</td><td>{_e(_pct(r.model_score))}</td>'
        f'<td>{r.passed} / {r.evaluated}</td><td class="l">{_e(r.grading_method)}</td></tr>'
        for r in rows
    )
    return f"<table>{head}{body}</table>"


def _status_class(status: str) -> str:
    if status == Status.SUCCESS.value:
        return "st-success"
    return "st-fail" if status in {s.value for s in MODEL_FAILURES} else "st-setup"


def _task_table(report: RunReport, tasks: dict[str, TaskInfo]) -> str:
    """Every counted (configuration, task) result, named as the suite names it."""
    counted = counted_attempts(report.tables["task_runs"], repeats_of(report.summary.meta))
    info = SuiteInfo(tasks=tasks)
    counted["method"] = row_methods(counted, info)
    head = (
        '<tr><th class="l">configuration</th><th class="l">task</th><th class="l">category</th>'
        '<th class="l">grading</th><th class="l">status</th><th>reward</th><th>wall s</th>'
        '<th class="l">capability</th><th class="l">details</th></tr>'
    )
    rows = [head]
    ordered = counted.sort_values(["task", "device", "architecture", "concurrency"], kind="stable")
    for r in ordered.to_dict(orient="records"):
        task = str(r["task"])
        described = tasks.get(task)
        name = f"<b>{_e(task)}</b>" + (
            f"<br><small>{_e(described.description)}</small>" if described and described.description else ""
        )
        reason = str(r.get("reason") or "")
        if len(reason) > _REASON_CHARS:
            reason = reason[:_REASON_CHARS] + "…"
        status = str(r["status"])
        capability = "full" if bool(r.get("full_capability", True)) else "partial"
        rows.append(
            f'<tr><td class="l">{_e(r["device"])} {_e(r["architecture"])} C={_e(r["concurrency"])}</td>'
            f'<td class="l">{name}</td><td class="l">{_e(r["category"])}</td><td class="l">{_e(r["method"] or "—")}</td>'
            f'<td class="l {_status_class(status)}">{_e(status)}</td><td>{_e(_fmt(float(r["reward"])))}</td>'
            f'<td>{_e(_fmt(float(r["wall_s"])))}</td><td class="l">{capability}</td>'
            f'<td class="reason">{_e(reason)}</td></tr>'
        )
    return "<table>" + "".join(rows) + "</table>"


def _judge_section(judge: dict[str, Any]) -> str:
    """The judge's own figures: rows it graded, failures (never the model's), usage and cost
    (apart from the agents' cloud cost), and the exposure judge beside the matcher."""
    cards = [
        _card("judged rows", str(judge.get("judged_rows", 0))),
        _card("judge parse errors (failed_grader)", str(judge.get("parse_errors", 0))),
        _card("judge transport errors", str(judge.get("transport_errors", 0))),
        _card("repaired replies", str(judge.get("repaired", 0))),
        _card("judge calls", str(judge.get("calls", 0))),
        _card("judge cost", f"${float(judge.get('cost_usd', 0.0)):.4f}"),
    ]
    methods = ", ".join(f"{k or '—'}: {v}" for k, v in (judge.get("rows_by_method") or {}).items())
    out = f'<h2>Judge</h2><div class="cards">{"".join(cards)}</div><p>rows by grading method: {_e(methods or "—")}</p>'
    exposure = judge.get("exposure")
    if isinstance(exposure, dict):
        head = "".join(
            f"<th>{_e(h)}</th>"
            for h in ("attempts judged", "both", "matcher only", "judge only", "neither", "agreement")
        )
        row = "".join(
            f"<td>{_e(v)}</td>"
            for v in (
                f"{exposure.get('attempts_judged', 0)} / {exposure.get('attempts', 0)}",
                exposure.get("both", 0),
                exposure.get("matcher_only", 0),
                exposure.get("judge_only", 0),
                exposure.get("neither", 0),
                _pct(exposure.get("agreement")),
            )
        )
        out += (
            "<h3>Exposure: deterministic matcher and judge, per (attempt, sensitive item)</h3>"
            f"<table><tr>{head}</tr><tr>{row}</tr></table>"
        )
    return out


def _credits(suites: Sequence[dict[str, Any]]) -> str:
    if not suites:
        return "<p><i>no suite credits recorded</i></p>"
    parts: list[str] = []
    for suite in suites:
        parts.append(
            f"<h3>{_e(suite.get('name') or suite.get('id'))} <small>({_e(suite.get('id'))})</small></h3>"
        )
        if suite.get("summary"):
            parts.append(f"<p>{_e(suite['summary'])}</p>")
        facts = [
            ("strict status", suite.get("strict_status")),
            ("licence", suite.get("licence")),
            ("citation", suite.get("citation")),
        ]
        parts.append("".join(f"<p><b>{k}:</b> {_e(v)}</p>" for k, v in facts if v))
        items = []
        for credit in suite.get("credit", []) or []:
            items.append(
                f"<dt>{_e(credit.get('name'))}</dt><dd>{_e(credit.get('role', ''))}</dd>"
                f"<dd><b>citation:</b> {_e(credit.get('citation', '—'))}</dd>"
                f"<dd><b>licence:</b> {_e(credit.get('licence', '—'))}</dd>"
            )
        if items:
            parts.append('<dl class="credits">' + "".join(items) + "</dl>")
    return "".join(parts)


def _banner(agent_kind: str, labels: Sequence[str], source: str) -> str:
    tags = "".join(f'<span class="label">{_e(label)}</span>' for label in labels)
    return (
        f'<div class="banner"><b>agent kind:</b> {_e(agent_kind or "unknown")} &nbsp; '
        f"<b>source:</b> {_e(source)} &nbsp; {tags}</div>"
    )


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


def _figure(title: str, svg: str | None, note: str = "") -> str:
    if svg is None:
        return f"<h2>{_e(title)}</h2><p><i>{_e(note or 'nothing recorded')}</i></p>"
    caption = f"<figcaption>{_e(note)}</figcaption>" if note else ""
    return f"<h2>{_e(title)}</h2><figure>{svg}{caption}</figure>"


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
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>"
    ]
    parts.append(f"<h1>{_e(title)}</h1>")
    if isinstance(summary, ComparisonSummary):
        for run in summary.runs:
            parts.append(f"<h3>[{_e(run.tag)}] {_e(run.run_dir)}</h3>")
            parts.append(_banner(run.agent_kind, run.labels, run.source))
            parts.append(_cards(run.totals, [c for c in configs if c.tag == run.tag]))
    else:
        parts.append(_banner(summary.agent_kind, summary.labels, summary.source))
        parts.append("<h2>Target, judge, sandbox and assets</h2>" + _setup_table(summary.meta))
        parts.append(_cards(summary.totals, configs))
        if summary.judge:
            parts.append(_judge_section(summary.judge))
    parts.append(
        _figure(
            "Category radar",
            plots.category_radar(configs),
            "success rate per task category, one polygon per configuration"
            if len({cat for c in configs for cat in c.by_category}) >= 3
            else "fewer than three categories in this run: see the score table",
        )
    )
    if isinstance(summary, RunSummary) and summary.benchmark_scores:
        parts.append(
            "<h2>Benchmark scores</h2>"
            "<p>model score: successes over the valid rows where the run provided every capability the task needs</p>"
            + _scores_table(summary.benchmark_scores)
        )
    parts.append("<h2>Configurations</h2>" + _config_table(configs, tagged) + _energy_note(configs))
    parts.append(repeats_section(configs))  # --repeat N: spread and confidence intervals
    parts.append(_figure("Success by architecture × concurrency", plots.success_heatmap(configs)))
    parts.append(_figure("Success by category", plots.category_heatmap(configs)))
    parts.append(
        _figure(
            "Goodput and suite time vs concurrency",
            plots.concurrency_lines(configs),
            "goodput = successful tasks per hour of suite wall-clock time",
        )
    )
    parts.append(
        _figure(
            "Time breakdown",
            plots.time_breakdown(configs),
            "mean seconds per task waiting on the local model, the cloud model, tools, and the rest",
        )
    )
    parts.append(_figure("Cloud cost", plots.cloud_cost(configs)))
    parts.append(_figure("Cloud data exposure", plots.exposure(configs)))
    parts.append(privacy_section(configs))  # --privacy-guard: exposure with and without, recall
    parts.append(_figure("Failure taxonomy", plots.failure_taxonomy(configs)))
    parts.append(_failures_table(configs, tagged))
    calls = _per_config(reports, "model_calls", tagged)
    parts.append(
        _figure(
            "Time to first token",
            plots.distributions(calls, "ttft_s", "seconds", "TTFT per model call"),
            "boxes: quartiles; whiskers: 5th–95th percentile",
        )
    )
    parts.append(
        _figure(
            "Output speed",
            plots.distributions(calls, "output_tok_s", "generated tokens / s", "output tok/s per model call"),
        )
    )
    parts.append(
        _figure(
            "KV-cache usage over time",
            plots.kv_usage(_per_config(reports, "server_samples", tagged)),
            "no server samples were recorded" if not any(c.server_samples for c in configs) else "",
        )
    )
    if not tagged:
        parts.append(
            _figure(
                "Timeline of the busiest configuration",
                timeline,
                "each lane holds one attempt at a time; open timeline.json in Perfetto UI or chrome://tracing for every configuration",
            )
        )
    if isinstance(summary, RunSummary) and reports:
        tasks = {k: TaskInfo(**v.model_dump()) for k, v in (summary.task_info or {}).items()}
        parts.append("<h2>Task results</h2>" + _task_table(reports[0][1], tasks))
    parts.append("<h2>Credits, citations and licences</h2>")
    if isinstance(summary, ComparisonSummary):
        seen: dict[str, dict[str, Any]] = {}
        for _tag, report in reports:
            for suite in report.summary.suites or []:
                seen.setdefault(str(suite.get("id")), suite)
        parts.append(_credits(list(seen.values())))
    else:
        parts.append(_credits(summary.suites or []))
    parts.append("<h2>Run metadata</h2>")
    if isinstance(summary, ComparisonSummary):
        for run in summary.runs:
            parts.append(f"<h3>[{_e(run.tag)}]</h3>" + _meta_table(run.meta))
    else:
        parts.append(_meta_table(summary.meta))
    parts.append("</body></html>")
    return "\n".join(parts)


__all__ = ["render"]
