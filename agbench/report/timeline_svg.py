"""A compact static SVG of one configuration's timeline, for ``summary.html``.

Why: ``timeline.json`` needs Perfetto to open; the report should show at a glance where the
concurrent agents waited. The view is drawn from the very Chrome trace events
``agbench.timeline`` writes (one code path): attempts are packed into lanes (at concurrency C
at most C attempts overlap, so about C lanes), and each lane shows its attempts' model calls
split into queue / prefill / decode, cloud calls, tool calls and failed calls. Plain SVG
elements only: no script, no font or network fetch.
"""

from __future__ import annotations

import html
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

COLOURS = {
    "queue": "#d62728",
    "prefill": "#ff7f0e",
    "decode": "#1f77b4",
    "cloud": "#9467bd",
    "tool": "#2ca02c",
    "error": "#222222",
}
_LEGEND = (
    ("queue", "waiting (limiter, slot)"),
    ("prefill", "prefill"),
    ("decode", "decode"),
    ("cloud", "cloud model"),
    ("tool", "tool"),
    ("error", "failed call"),
)
WIDTH = 1100
LANE_H = 14
LEFT = 70
TOP = 26


def busiest_process(trace: Mapping[str, Any]) -> int | None:
    """The configuration (pid) with the most model calls: where waiting shows most."""
    counts: dict[int, int] = defaultdict(int)
    for e in trace["traceEvents"]:
        if e["ph"] == "X" and e["cat"] == "model":
            counts[e["pid"]] += 1
    return max(counts, key=lambda pid: (counts[pid], -pid)) if counts else None


def process_name(trace: Mapping[str, Any], pid: int) -> str:
    for e in trace["traceEvents"]:
        if e["ph"] == "M" and e["name"] == "process_name" and e["pid"] == pid:
            return str(e["args"]["name"])
    return f"configuration {pid}"


def span_kind(event: Mapping[str, Any]) -> str | None:
    """What a span is drawn as: a cloud call is one bar, a local call its phases."""
    cat = str(event["cat"])
    cloud = event.get("args", {}).get("endpoint") == "cloud"
    if cat == "tool":
        return "tool"
    if cat == "model.error":
        return "error"
    if cat == "model":
        return "cloud" if cloud else None
    if cat.startswith("model.") and not cloud:
        return cat.removeprefix("model.")
    return None


def timeline_svg(trace: Mapping[str, Any], pid: int | None = None) -> str | None:
    """The SVG of configuration ``pid`` (default: the busiest); None when nothing ran."""
    pid = busiest_process(trace) if pid is None else pid
    if pid is None:
        return None
    events = [e for e in trace["traceEvents"] if e.get("pid") == pid]
    attempt_of = {
        e["tid"]: str(e["args"]["name"]).rsplit(" ", 1)[0]
        for e in events
        if e["ph"] == "M" and e["name"] == "thread_name"
    }
    spans = [e for e in events if e["ph"] == "X"]
    if not spans:
        return None
    extent: dict[str, list[float]] = {}
    for e in spans:
        start, end = float(e["ts"]), float(e["ts"]) + float(e["dur"])
        lo_hi = extent.setdefault(attempt_of[e["tid"]], [start, end])
        lo_hi[0], lo_hi[1] = min(lo_hi[0], start), max(lo_hi[1], end)
    lane_end: list[float] = []
    lane_of: dict[str, int] = {}
    for attempt, (start, end) in sorted(extent.items(), key=lambda kv: (kv[1][0], kv[0])):
        free = next((i for i, t in enumerate(lane_end) if t <= start + 1.0), None)  # 1 us: rounding
        if free is None:
            lane_end.append(end)
            free = len(lane_end) - 1
        lane_end[free] = end
        lane_of[attempt] = free
    t_min = min(lo for lo, _ in extent.values())
    t_max = max(hi for _, hi in extent.values())
    scale = (WIDTH - LEFT - 10) / max(t_max - t_min, 1.0)
    lanes = len(lane_end)
    height = TOP + lanes * LANE_H + 40

    def x(ts: float) -> float:
        return LEFT + (ts - t_min) * scale

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="10">',
        f'<text x="{LEFT}" y="12">{html.escape(process_name(trace, pid))}: {len(extent)} attempts in '
        f"{lanes} lanes, {(t_max - t_min) / 1e6:,.0f} s</text>",
    ]
    for i in range(lanes):
        y = TOP + i * LANE_H
        parts.append(f'<text x="{LEFT - 4}" y="{y + LANE_H - 4}" text-anchor="end">lane {i + 1}</text>')
    for attempt, (start, end) in extent.items():  # the attempt itself, pale
        y = TOP + lane_of[attempt] * LANE_H
        parts.append(
            f'<rect x="{x(start):.1f}" y="{y + 1}" width="{max(0.5, (end - start) * scale):.1f}" '
            f'height="{LANE_H - 2}" fill="#eeeeee" stroke="#bbbbbb" stroke-width="0.5">'
            f"<title>{html.escape(attempt)}</title></rect>"
        )
    for e in spans:
        kind = span_kind(e)
        if kind is None:
            continue
        y = TOP + lane_of[attempt_of[e["tid"]]] * LANE_H
        parts.append(
            f'<rect x="{x(float(e["ts"])):.1f}" y="{y + 3}" width="{max(0.3, float(e["dur"]) * scale):.1f}" '
            f'height="{LANE_H - 6}" fill="{COLOURS[kind]}"/>'
        )
    axis_y = TOP + lanes * LANE_H + 12
    for k in range(6):
        t = t_min + (t_max - t_min) * k / 5
        parts.append(
            f'<text x="{x(t):.1f}" y="{axis_y}" text-anchor="middle">{(t - t_min) / 1e6:,.0f} s</text>'
        )
    lx = LEFT
    for key, label in _LEGEND:
        parts.append(f'<rect x="{lx}" y="{axis_y + 8}" width="10" height="8" fill="{COLOURS[key]}"/>')
        parts.append(f'<text x="{lx + 13}" y="{axis_y + 16}">{html.escape(label)}</text>')
        lx += 30 + 6 * len(label)
    parts.append("</svg>")
    return "".join(parts)


__all__ = ["COLOURS", "busiest_process", "process_name", "span_kind", "timeline_svg"]
