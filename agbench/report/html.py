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

from agbench.metrics import config_of, only_counted
from agbench.metrics.outcomes import CONFIG_KEYS, counted_attempts
from agbench.report import plots
from agbench.report.summary import RunReport

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
"""


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


def _cards(totals: dict[str, Any], configs: Sequence[dict[str, Any]]) -> str:
    best = max(configs, key=lambda c: c["goodput_per_h"])
    cards = [
        _card("tasks (counted)", str(totals["tasks"])),
        _card("successes", str(totals["success"])),
        _card("raw score, all tasks", _pct(totals["raw_score_all_tasks"])),
        _card("score, valid tasks only", _pct(totals["score_valid_tasks_only"])),
        _card("model score, valid tasks only", _pct(totals["model_score_valid_tasks_only"])),
        _card(
            f"best goodput ({best['architecture']} C={best['concurrency']})",
            f"{best['goodput_per_h']:.3g} /h",
        ),
        _card("cloud cost", f"${sum(c['cloud_cost_usd'] for c in configs):.4f}"),
        _card("interrupted attempts (not counted)", str(totals["interrupted_attempts"])),
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
    ("output_tok_s_p50", "local tok/s p50", _fmt),
    ("cloud_ttft_p50_s", "cloud TTFT p50 s", _fmt),
    ("kv_peak_fraction", "KV peak", _pct),
    ("local_context_errors", "local ctx errors", _fmt),
]


def _config_table(configs: Sequence[dict[str, Any]], tagged: bool) -> str:
    head = (["run"] if tagged else []) + ["device", "arch", "C"]
    cells = "".join(f'<th class="l">{_e(h)}</th>' for h in head)
    cells += "".join(f"<th>{_e(title)}</th>" for _, title, _ in _TABLE_COLUMNS)
    rows = [f"<tr>{cells}</tr>"]
    for c in configs:
        lead = ([plots.tag_of(c)] if tagged else []) + [c["device"], c["architecture"], c["concurrency"]]
        row = "".join(f'<td class="l">{_e(v)}</td>' for v in lead)
        row += "".join(f"<td>{_e(fmt(c.get(key)))}</td>" for key, _, fmt in _TABLE_COLUMNS)
        rows.append(f"<tr>{row}</tr>")
    return "<table>" + "".join(rows) + "</table>"


def _failures_table(configs: Sequence[dict[str, Any]], tagged: bool) -> str:
    statuses = list(configs[0]["failures"])
    head = "".join(f"<th>{_e(s)}</th>" for s in statuses)
    rows = [f'<tr><th class="l">configuration</th><th>success</th>{head}</tr>']
    for c in configs:
        label = plots.config_label(c, True, tagged)
        row = "".join(f"<td>{c['failures'][s]}</td>" for s in statuses)
        rows.append(f'<tr><td class="l">{_e(label)}</td><td>{c["success"]}</td>{row}</tr>')
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
            frame = only_counted(frame, counted_attempts(report.tables["task_runs"]))
        configs = report.summary["configurations"]
        devices = {c["device"] for c in configs}
        groups = {config_of(key): rows for key, rows in frame.groupby(CONFIG_KEYS, sort=False, observed=True)}
        for conf in configs:  # the summary's order: LO, CO, HCL, HLL by concurrency
            rows = groups.get((conf["device"], conf["architecture"], int(conf["concurrency"])))
            if rows is not None:
                out.append((plots.config_label({**conf, "tag": tag}, len(devices) > 1, tagged), rows))
    return out


def _figure(title: str, svg: str | None, note: str = "") -> str:
    if svg is None:
        return f"<h2>{_e(title)}</h2><p><i>{_e(note or 'nothing recorded')}</i></p>"
    caption = f"<figcaption>{_e(note)}</figcaption>" if note else ""
    return f"<h2>{_e(title)}</h2><figure>{svg}{caption}</figure>"


def render(
    summary: dict[str, Any], reports: Sequence[tuple[str, RunReport]], timeline: str | None = None
) -> str:
    """The whole page for one run's summary, or for a comparison summary; ``timeline`` is
    the static SVG of the busiest configuration's timeline (``report/timeline_svg.py``)."""
    configs = summary["configurations"]
    tagged = bool(summary.get("comparison"))
    title = "agbench comparison" if tagged else f"agbench run {summary.get('run_id') or ''}".strip()
    parts = [
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{_e(title)}</title><style>{_CSS}</style></head><body>"
    ]
    parts.append(f"<h1>{_e(title)}</h1>")
    if tagged:
        for run in summary["runs"]:
            parts.append(f"<h3>[{_e(run['tag'])}] {_e(run['run_dir'])}</h3>")
            parts.append(_banner(run["agent_kind"], run["labels"], run["source"]))
            parts.append(_cards(run["totals"], [c for c in configs if c["tag"] == run["tag"]]))
    else:
        parts.append(_banner(summary["agent_kind"], summary["labels"], summary["source"]))
        parts.append(_cards(summary["totals"], configs))
    parts.append("<h2>Configurations</h2>" + _config_table(configs, tagged))
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
            "no server samples were recorded" if not any(c["server_samples"] for c in configs) else "",
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
    parts.append("<h2>Run metadata</h2>")
    if tagged:
        for run in summary["runs"]:
            parts.append(f"<h3>[{_e(run['tag'])}]</h3>" + _meta_table(run["meta"]))
    else:
        parts.append(_meta_table(summary["meta"]))
    parts.append("</body></html>")
    return "\n".join(parts)


__all__ = ["render"]
