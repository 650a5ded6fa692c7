"""A compact static SVG of one configuration's timeline, for ``summary.html``.

Why: ``timeline.json`` needs Perfetto to open; the report should show at a glance where the
concurrent agents waited. The view is drawn from the very Chrome trace events
``agbench.timeline`` writes (one code path): attempts are packed into lanes (at concurrency C
at most C attempts overlap, so about C lanes), and each lane shows its attempts' model calls
split into queue / prefill / decode, cloud calls, tool calls and failed calls. Plain SVG
elements only: no script, no font or network fetch. This module computes the coordinates;
templates/timeline.svg.j2 writes the elements (names escaped there).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from agbench.report.templating import render_template
from agbench.results.timeline import SpanEvent, Timeline

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


def busiest_process(trace: Timeline) -> int | None:
    """The configuration (pid) with the most model calls: where waiting shows most."""
    counts: dict[int, int] = defaultdict(int)
    for e in trace.spans():
        if e.cat == "model":
            counts[e.pid] += 1
    return max(counts, key=lambda pid: (counts[pid], -pid)) if counts else None


def process_name(trace: Timeline, pid: int) -> str:
    return trace.process_names().get(pid, f"configuration {pid}")


def span_kind(event: SpanEvent) -> str | None:
    """What a span is drawn as: a cloud call is one bar, a local call its phases."""
    cat = event.cat
    cloud = event.args.endpoint == "cloud"
    if cat == "tool":
        return "tool"
    if cat == "model.error":
        return "error"
    if cat == "model":
        return "cloud" if cloud else None
    if cat.startswith("model.") and not cloud:
        return cat.removeprefix("model.")
    return None


def timeline_svg(trace: Timeline, pid: int | None = None) -> str | None:
    """The SVG of configuration ``pid`` (default: the busiest); None when nothing ran."""
    pid = busiest_process(trace) if pid is None else pid
    if pid is None:
        return None
    attempt_of = {tid: name.rsplit(" ", 1)[0] for (_, tid), name in trace.thread_names(pid).items()}
    spans = trace.spans(pid)
    if not spans:
        return None
    extent: dict[str, list[float]] = {}
    for e in spans:
        start, end = e.ts, e.ts + e.dur
        lo_hi = extent.setdefault(attempt_of[e.tid], [start, end])
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

    texts: list[dict[str, Any]] = [
        {
            "x": LEFT,
            "y": 12,
            "anchor": "",
            "text": f"{process_name(trace, pid)}: {len(extent)} attempts in {lanes} lanes, "
            f"{(t_max - t_min) / 1e6:,.0f} s",
        }
    ]
    texts += [
        {"x": LEFT - 4, "y": TOP + i * LANE_H + LANE_H - 4, "anchor": "end", "text": f"lane {i + 1}"}
        for i in range(lanes)
    ]
    attempts = [  # the attempt itself, pale
        {
            "x": f"{x(start):.1f}",
            "y": TOP + lane_of[attempt] * LANE_H + 1,
            "w": f"{max(0.5, (end - start) * scale):.1f}",
            "h": LANE_H - 2,
            "title": attempt,
        }
        for attempt, (start, end) in extent.items()
    ]
    rects = []
    for e in spans:
        kind = span_kind(e)
        if kind is None:
            continue
        rects.append(
            {
                "x": f"{x(e.ts):.1f}",
                "y": TOP + lane_of[attempt_of[e.tid]] * LANE_H + 3,
                "w": f"{max(0.3, e.dur * scale):.1f}",
                "h": LANE_H - 6,
                "fill": COLOURS[kind],
            }
        )
    axis_y = TOP + lanes * LANE_H + 12
    axis = []
    for k in range(6):
        t = t_min + (t_max - t_min) * k / 5
        axis.append(
            {"x": f"{x(t):.1f}", "y": axis_y, "anchor": "middle", "text": f"{(t - t_min) / 1e6:,.0f} s"}
        )
    legend = []
    lx = LEFT
    for key, label in _LEGEND:
        legend.append(
            {
                "x": lx,
                "box_y": axis_y + 8,
                "fill": COLOURS[key],
                "text_x": lx + 13,
                "text_y": axis_y + 16,
                "text": label,
            }
        )
        lx += 30 + 6 * len(label)
    return render_template(
        "timeline.svg.j2",
        width=WIDTH,
        height=height,
        texts=texts,
        attempts=attempts,
        rects=rects,
        axis=axis,
        legend=legend,
    )


__all__ = ["COLOURS", "busiest_process", "process_name", "span_kind", "timeline_svg"]
