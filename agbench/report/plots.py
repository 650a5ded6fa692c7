"""Report figures as inline SVG strings (matplotlib, Agg backend).

Every figure is drawn from summary dicts (and, for distributions and KV usage, the run's
trace tables) so a live run, a simulated run and a side-by-side comparison use the same
code. SVG text stays text (``svg.fonttype = none``) to keep pages small, and the RDF metadata
block matplotlib adds is stripped so the page holds no external URL at all.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator, NullLocator

from agbench.results.summary import ConfigurationSummary

# Figures are built on matplotlib.figure.Figure directly (no pyplot): no global backend is
# switched, so importing the report module leaves a notebook's inline plotting alone.
_STYLE: dict[str, Any] = {"svg.fonttype": "none", "svg.hashsalt": "agbench", "font.size": 9}


def _subplots(*args: Any, figsize: tuple[float, float], **kwargs: Any) -> tuple[Figure, Any]:
    with matplotlib.rc_context(_STYLE):  # type: ignore[arg-type]
        fig = Figure(figsize=figsize)
        return fig, fig.subplots(*args, **kwargs)


BREAKDOWN_COLORS = {
    "local_model": "#4c72b0",
    "cloud_model": "#dd8452",
    "tools": "#55a868",
    "other": "#8c8c8c",
}
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)
_MAX_LINE_POINTS = 1500


def config_label(conf: ConfigurationSummary, with_device: bool, with_source: bool) -> str:
    """How a configuration is named on axes: ``LO C=2``, with device / source when they vary."""
    label = f"{conf.architecture} C={conf.concurrency}"
    if with_device:
        label = f"{conf.device} {label}"
    if with_source:
        label = f"[{tag_of(conf)}] {label}"
    return label


def tag_of(conf: ConfigurationSummary) -> str:
    """The run a configuration came from, as shown on a comparison page (its source by default)."""
    return conf.tag or conf.source or "?"


def to_svg(fig: Figure) -> str:
    buf = io.StringIO()
    with matplotlib.rc_context(_STYLE):  # type: ignore[arg-type]
        fig.savefig(buf, format="svg", bbox_inches="tight")
    text = buf.getvalue()
    text = text[text.index("<svg") :]
    return _METADATA.sub("", text)


def _labels(configs: Sequence[ConfigurationSummary]) -> list[str]:
    devices = {c.device for c in configs}
    sources = {tag_of(c) for c in configs}
    return [config_label(c, len(devices) > 1, len(sources) > 1) for c in configs]


def _bar_height(n: int) -> float:
    return max(2.2, 0.32 * n + 1.0)


def success_heatmap(configs: Sequence[ConfigurationSummary]) -> str:
    """Success rate by architecture (rows) × concurrency (columns), one panel per device/source."""
    panels: dict[str, list[ConfigurationSummary]] = {}
    for c in configs:
        panels.setdefault(f"[{tag_of(c)}] {c.device}", []).append(c)
    fig, axes = _subplots(1, len(panels), figsize=(4.2 * len(panels), 3.0), squeeze=False)
    for ax, (title, items) in zip(axes[0], panels.items(), strict=True):
        archs = list(dict.fromkeys(c.architecture for c in items))
        concs = sorted({int(c.concurrency) for c in items})
        grid = np.full((len(archs), len(concs)), np.nan)
        counts: dict[tuple[int, int], str] = {}
        for c in items:
            i, j = archs.index(c.architecture), concs.index(int(c.concurrency))
            grid[i, j] = c.success / c.tasks if c.tasks else np.nan
            counts[(i, j)] = f"{c.success}/{c.tasks}"
        ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto")
        ax.set_xticks(range(len(concs)), [f"C={x}" for x in concs])
        ax.set_yticks(range(len(archs)), archs)
        for (i, j), text in counts.items():
            ax.text(j, i, text, ha="center", va="center", color="white" if grid[i, j] < 0.6 else "black")
        ax.set_title(f"success rate — {title}")
    return to_svg(fig)


def category_heatmap(configs: Sequence[ConfigurationSummary]) -> str:
    """Success rate per configuration (rows) × task category (columns)."""
    categories = sorted({cat for c in configs for cat in c.by_category})
    labels = _labels(configs)
    grid = np.full((len(configs), max(1, len(categories))), np.nan)
    for i, c in enumerate(configs):
        for j, cat in enumerate(categories):
            cell = c.by_category.get(cat)
            if cell and cell.success_rate is not None:
                grid[i, j] = cell.success_rate
    fig, ax = _subplots(figsize=(max(4.0, 0.9 * len(categories) + 2.5), _bar_height(len(configs))))
    image = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(categories)), categories, rotation=30, ha="right")
    ax.set_yticks(range(len(configs)), labels)
    fig.colorbar(image, ax=ax, label="success rate")
    ax.set_title("success by category")
    return to_svg(fig)


_RADAR_MIN_AXES = 3
_RADAR_MAX_SERIES = 10


def category_radar(configs: Sequence[ConfigurationSummary]) -> str | None:
    """Success rate per task category as a radar (one polygon per configuration, at most ten:
    the best by success). None when the run covers fewer than three categories: a radar of
    one or two spokes shows nothing a table does not."""
    categories = sorted({cat for c in configs for cat in c.by_category})
    if len(categories) < _RADAR_MIN_AXES or not configs:
        return None
    shown = sorted(configs, key=lambda c: -(c.success_rate or 0.0))[:_RADAR_MAX_SERIES]
    labels = dict(zip(map(id, configs), _labels(configs), strict=True))
    angles = np.linspace(0.0, 2 * np.pi, len(categories), endpoint=False)
    closed = np.concatenate([angles, angles[:1]])
    with matplotlib.rc_context(_STYLE):  # type: ignore[arg-type]
        fig = Figure(figsize=(6.4, 5.0))
        ax: Any = fig.add_subplot(projection="polar")
    for c in shown:
        cells = c.by_category
        values = [(cell.success_rate if (cell := cells.get(cat)) else None) or 0.0 for cat in categories]
        ring = np.array([*values, values[0]])
        ax.plot(closed, ring, "-o", markersize=3, linewidth=1.2, label=labels[id(c)])
        ax.fill(closed, ring, alpha=0.08)
    ax.set_xticks(angles, categories)
    ax.set_ylim(0.0, 1.0)
    ax.set_yticks([0.25, 0.5, 0.75, 1.0], ["25%", "50%", "75%", "100%"], fontsize=7)
    ax.set_title("success rate by category")
    ax.legend(loc="upper left", bbox_to_anchor=(1.08, 1.0), fontsize=7)
    return to_svg(fig)


def concurrency_lines(configs: Sequence[ConfigurationSummary]) -> str:
    """Goodput and suite wall-clock time against concurrency, one line per architecture."""
    fig, (left, right) = _subplots(1, 2, figsize=(9.0, 3.2))
    series: dict[str, list[ConfigurationSummary]] = {}
    multi_source = len({tag_of(c) for c in configs}) > 1
    multi_device = len({c.device for c in configs}) > 1
    for c in configs:
        name: str = c.architecture.value
        if multi_device:
            name = f"{c.device} {name}"
        if multi_source:
            name = f"[{tag_of(c)}] {name}"
        series.setdefault(name, []).append(c)
    for name, items in series.items():
        items = sorted(items, key=lambda c: int(c.concurrency))
        xs = [int(c.concurrency) for c in items]
        style = "--" if name.startswith("[sim]") else "-"
        left.plot(xs, [c.goodput_per_h for c in items], style, marker="o", label=name)
        right.plot(xs, [c.suite_wall_s for c in items], style, marker="o", label=name)
    for ax, ylabel in ((left, "goodput (successes / h)"), (right, "suite wall-clock (s)")):
        ax.set_xlabel("concurrency")
        ax.set_ylabel(ylabel)
        ax.set_xscale("log", base=2)
        levels = sorted({int(c.concurrency) for c in configs})
        ax.set_xticks(levels, [str(x) for x in levels])
        ax.xaxis.set_minor_locator(NullLocator())
        ax.grid(alpha=0.3)
    left.legend(fontsize=7)
    return to_svg(fig)


def _stacked_bars(
    configs: Sequence[ConfigurationSummary],
    parts: dict[str, list[float]],
    colors: Sequence[str] | None,
    xlabel: str,
    title: str,
) -> str:
    labels = _labels(configs)
    fig, ax = _subplots(figsize=(7.5, _bar_height(len(configs))))
    left = np.zeros(len(configs))
    for index, (name, values) in enumerate(parts.items()):
        color = colors[index % len(colors)] if colors else None
        ax.barh(labels, values, left=left, label=name, color=color)
        left += np.asarray(values, dtype=float)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(axis="x", alpha=0.3)
    return to_svg(fig)


def time_breakdown(configs: Sequence[ConfigurationSummary]) -> str:
    parts = {k: [float(getattr(c.time_breakdown_s, k)) for c in configs] for k in BREAKDOWN_COLORS}
    return _stacked_bars(
        configs, parts, list(BREAKDOWN_COLORS.values()), "mean seconds per task", "time breakdown"
    )


def cloud_cost(configs: Sequence[ConfigurationSummary]) -> str:
    """Cost split by token kind (left) and by successful vs failed tasks (right)."""
    labels = _labels(configs)
    fig, (left, right) = _subplots(1, 2, figsize=(10.0, _bar_height(len(configs))), sharey=True)
    start = np.zeros(len(configs))
    for name in ("cached_input", "uncached_input", "output"):
        values = np.asarray([getattr(c.cloud_cost_breakdown_usd, name) for c in configs], dtype=float)
        left.barh(labels, values, left=start, label=name)
        start += values
    start = np.zeros(len(configs))
    for name, key in (
        ("successful tasks", "cloud_cost_successful_usd"),
        ("failed tasks", "cloud_cost_failed_usd"),
    ):
        values = np.asarray([getattr(c, key) for c in configs], dtype=float)
        right.barh(labels, values, left=start, label=name)
        start += values
    left.invert_yaxis()
    for ax in (left, right):
        ax.xaxis.set_major_locator(MaxNLocator(4))
    left.set_xlabel("USD (token kind × price table)")
    right.set_xlabel("USD (recorded)")
    left.set_title("cloud cost by token kind")
    right.set_title("cloud cost by outcome")
    left.legend(fontsize=7)
    right.legend(fontsize=7)
    return to_svg(fig)


def exposure(configs: Sequence[ConfigurationSummary]) -> str:
    labels = _labels(configs)
    fig, ax = _subplots(figsize=(7.5, _bar_height(len(configs))))
    ratios = [c.exposure_ratio for c in configs]
    unguarded = [c.privacy_guard.exposure_ratio_unguarded if c.privacy_guard else None for c in configs]
    guarded = any(u is not None for u in unguarded)  # --privacy-guard: what the cloud would have seen
    if guarded:
        ax.barh(labels, [u or 0.0 for u in unguarded], color="#e8b0b1", label="without the guard")
    ax.barh(labels, ratios, color="#c44e52", label="seen by the cloud" if guarded else None)
    if guarded:
        ax.legend(fontsize=7, loc="lower right")
    for i, c in enumerate(configs):
        ax.text(ratios[i], i, f" {c.sensitive_exposed}/{c.sensitive_total}", va="center", fontsize=7)
    ax.set_xlim(0, 1.15)
    ax.invert_yaxis()
    ax.set_xlabel("distinct sensitive items seen by the cloud / all sensitive items")
    ax.set_title("cloud data exposure")
    return to_svg(fig)


def failure_taxonomy(configs: Sequence[ConfigurationSummary]) -> str:
    statuses = [s for s in configs[0].failures if any(c.failures.get(s, 0) for c in configs)]
    parts = {"success": [float(c.success) for c in configs]}
    parts.update({s: [float(c.failures.get(s, 0)) for c in configs] for s in statuses})
    palette = [
        "#55a868",
        "#c44e52",
        "#dd8452",
        "#8172b3",
        "#937860",
        "#da8bc3",
        "#8c8c8c",
        "#ccb974",
        "#64b5cd",
    ]
    return _stacked_bars(configs, parts, palette, "tasks", "outcomes and failure taxonomy")


def distributions(
    groups: Sequence[tuple[str, pd.DataFrame]], column: str, xlabel: str, title: str, log: bool = False
) -> str | None:
    """Box plots of one model_calls column (5th–95th percentile whiskers), per configuration
    and endpoint; None when no call has that figure."""
    data: list[np.ndarray] = []
    names: list[str] = []
    for label, calls in groups:
        if not len(calls) or column not in calls:
            continue
        for endpoint, rows in calls.groupby("endpoint", sort=True, observed=True):
            values = rows[column].dropna().to_numpy(dtype=float)
            if values.size:
                data.append(values)
                names.append(f"{label} · {endpoint}")
    if not data:
        return None
    fig, ax = _subplots(figsize=(7.5, _bar_height(len(data))))
    ax.boxplot(data, orientation="horizontal", whis=(5, 95), showfliers=False)
    ax.set_yticks(range(1, len(names) + 1), names)
    ax.invert_yaxis()
    if log:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    return to_svg(fig)


def kv_usage(groups: Sequence[tuple[str, pd.DataFrame]]) -> str | None:
    """Local KV-cache usage over time (fraction of cells), one line per configuration."""
    fig, ax = _subplots(figsize=(8.0, 3.2))
    drawn = 0
    for label, samples in groups:
        if len(samples) and "server" in samples.columns:
            samples = samples[samples["server"].astype(str) == "local"]  # not a cloud stand-in's pool
        kv = samples[samples["kv_total"] > 0].sort_values("t") if len(samples) else samples
        if not len(kv):
            continue
        step = max(1, len(kv) // _MAX_LINE_POINTS)
        kv = kv.iloc[::step]
        t = kv["t"].to_numpy(dtype=float)
        ax.plot(t - t[0], (kv["kv_used"] / kv["kv_total"]).to_numpy(dtype=float), label=label, lw=1)
        drawn += 1
    if not drawn:
        return None
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("seconds since the configuration's first sample")
    ax.set_ylabel("KV cells used / total")
    ax.set_title("local KV-cache usage over time")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    return to_svg(fig)


__all__ = [
    "category_heatmap",
    "category_radar",
    "cloud_cost",
    "concurrency_lines",
    "config_label",
    "distributions",
    "exposure",
    "failure_taxonomy",
    "kv_usage",
    "success_heatmap",
    "tag_of",
    "time_breakdown",
    "to_svg",
]
