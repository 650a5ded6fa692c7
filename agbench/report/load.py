"""Report files of a load run (live or simulated): ``summary.json``, ``results.csv`` (one row
per level) and a static ``summary.html`` with latency and throughput against offered load.

A load run answers "how does this server behave as requests arrive faster?", so its page is
about the server alone: TTFT, inter-token latency and end-to-end latency percentiles, and
achieved throughput, each plotted against the offered rate. The page's layout is
templates/load.html.j2 (autoescaped; agbench/report/templating.py).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from agbench.metrics import read_tables
from agbench.metrics.load import PERCENTILES, load_summary
from agbench.report.plots import _subplots, to_svg
from agbench.report.templating import render_template, svg
from agbench.results.load_summary import LoadLevel, LoadSummary
from agbench.store import RunStore
from agbench.timeline import write_timeline

#: The columns a load summary reads (more of model_calls than a sweep's summary needs).
LOAD_COLUMNS: dict[str, list[str]] = {
    "model_calls": [
        "task",
        "attempt",
        "t_start",
        "ttft_s",
        "total_s",
        "prompt_tokens",
        "cached_tokens",
        "completion_tokens",
        "prompt_ms",
        "finish_reason",
        "error_class",
    ],
}

_RESULT_COLUMNS = [
    "level",
    "kind",
    "offered_rate",
    "requests",
    "completed",
    "throughput_rps",
    "output_tok_s",
    *[f"{m}_p{p}_s" for m in ("ttft", "itl", "e2e") for p in PERCENTILES],
]


def _latency_figure(levels: list[LoadLevel]) -> str:
    rated = [lv for lv in levels if lv.offered_rate]
    fig, axes = _subplots(1, 4, figsize=(13, 3.0))
    x = [lv.offered_rate or 0.0 for lv in rated]
    for ax, metric, title in zip(
        axes[:3], ("ttft", "itl", "e2e"), ("TTFT", "inter-token latency", "end-to-end"), strict=True
    ):
        for p, style in zip(PERCENTILES, ("-o", "--s", ":^"), strict=True):
            y = [getattr(lv, f"{metric}_p{p}_s") for lv in rated]
            ax.plot(x, [v if v is not None else float("nan") for v in y], style, label=f"p{p}")
        ax.set_title(f"{title} (s)")
        ax.set_xlabel("offered load (requests/s)")
        ax.legend(fontsize=7)
    ax = axes[3]
    ax.plot(x, [lv.throughput_rps or 0.0 for lv in rated], "-o", label="achieved")
    ax.plot(x, x, ":", color="#888", label="offered")
    ax.set_title("throughput (requests/s)")
    ax.set_xlabel("offered load (requests/s)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return to_svg(fig)


def _fmt(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, dict):
        return ", ".join(f"{k or 'ok'}: {v}" for k, v in value.items()) or "—"
    return str(value)


def render_load(summary: LoadSummary) -> str:
    """The page: banner (source, labels), level table, latency-vs-load figure."""
    levels = summary.levels
    columns = [*_RESULT_COLUMNS, "errors"]
    return render_template(
        "load.html.j2",
        run_id=summary.run_id,
        device=summary.device,
        source=summary.source,
        labels=[str(x) for x in summary.labels],
        figure=svg(_latency_figure(levels)) if any(lv.offered_rate for lv in levels) else "",
        columns=columns,
        rows=[[_fmt(getattr(lv, c, None)) for c in columns] for lv in levels],
    )


def write_load_report(run_dir: Path) -> list[Path]:
    """(Re)write a load run's report files; returns them."""
    store = RunStore.open(run_dir)
    meta = store.meta()
    summary = load_summary(read_tables(store, LOAD_COLUMNS), meta)
    out_json = run_dir / "summary.json"
    out_json.write_text(json.dumps(summary.to_json_dict(), indent=2, default=str), encoding="utf-8")
    out_csv = run_dir / "results.csv"
    with out_csv.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=_RESULT_COLUMNS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(lv.to_json_dict() for lv in summary.levels)
    page = run_dir / "summary.html"
    page.write_text(render_load(summary), encoding="utf-8")
    return [out_json, out_csv, page, write_timeline(run_dir)]


__all__ = ["render_load", "write_load_report"]
