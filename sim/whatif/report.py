"""The what-if report: ``whatif.json`` (every point), ``points.csv``, ``pareto.html`` (static page
with the front plotted pairwise against the other points and each front point's bottleneck),
and the front as text for the terminal. The page's layout is templates/pareto.html.j2, shipped
with the simulator and autoescaped (agbench/report/templating.py).
"""

from __future__ import annotations

import csv
import json
import math
from itertools import combinations
from pathlib import Path
from typing import Any

import matplotlib
from matplotlib.figure import Figure

from agbench.report.plots import to_svg
from agbench.report.templating import render_template, svg
from agbench.sim.whatif.result import WhatIfResult
from agbench.sim.whatif.spec import OBJECTIVES

UNITS = {
    "success": "success rate",
    "goodput": "successes / h",
    "mean_completion": "mean s per task",
    "cloud_cost": "cloud USD",
    "exposure": "exposure ratio",
}
ARCH_COLOURS = {"LO": "#1f77b4", "CO": "#d62728", "HCL": "#9467bd", "HLL": "#2ca02c"}


def summary(result: WhatIfResult) -> dict[str, Any]:
    sp = result.spec
    rows = [r.to_dict() for r in result.results]
    return {
        "name": sp.name,
        "spec": str(sp.path) if sp.path else "",
        "search": sp.search,
        "seed": sp.seed,
        "limit": sp.limit,
        "objectives": {o: OBJECTIVES[o] for o in sp.objectives},
        "space": sp.space,
        "devices": result.devices,
        "points": len(rows),
        "simulated": len(result.simulated),
        "refused": len(result.refused),
        "wall_s": round(result.wall_s, 3),
        "where": result.where,
        "front": [rows[i] for i in result.front],
        "all": rows,
        **({"intervals": result.intervals.to_dict(result)} if result.intervals is not None else {}),
    }


def front_groups(result: WhatIfResult) -> list[list[int]]:
    """Front points grouped by equal objectives (e.g. CO at one concurrency under every local
    setting, which CO never uses), best first on the first objective; each group is listed once."""
    objs = result.spec.objectives
    groups: dict[tuple[float, ...], list[int]] = {}
    for i in result.front:
        key = tuple(round(result.results[i].objectives[o], 9) for o in objs)
        groups.setdefault(key, []).append(i)
    sign = 1.0 if OBJECTIVES[objs[0]] == "max" else -1.0
    return sorted(groups.values(), key=lambda g: -sign * result.results[g[0]].objectives[objs[0]])


def front_lines(result: WhatIfResult) -> list[str]:
    """The front as terminal lines: label, objectives, bottleneck."""
    objs = result.spec.objectives
    lines = [
        f"{result.spec.name}: {len(result.results)} points ({len(result.simulated)} simulated, "
        f"{len(result.refused)} refused: do not fit in memory) in {result.wall_s:.1f} s on {result.where}",
        f"Pareto front ({len(result.front)} points, {len(front_groups(result))} distinct; "
        + ", ".join(f"{o} {'higher' if OBJECTIVES[o] == 'max' else 'lower'} is better" for o in objs)
        + "):",
    ]
    for group in front_groups(result):
        r = result.results[group[0]]
        figures = "  ".join(f"{o}={_with_band(result, group[0], o)}" for o in objs)
        same = f" (+{len(group) - 1} settings with the same figures)" if len(group) > 1 else ""
        lines.append(f"  {r.point.label}{same}: {figures}")
        if r.bottleneck:
            lines.append(f"      bottleneck {r.bottleneck.text}")
    return lines + answer_lines(result)


def _with_band(result: WhatIfResult, index: int, objective: str) -> str:
    """An objective's value, and its 90 % range over the draws when the front was redrawn."""
    text = _fmt(result.results[index].objectives[objective])
    iv = result.intervals
    band = iv.bands.get(index, {}).get(objective) if iv is not None else None
    if band is None:
        return text
    return f"{text} [{'assumed ' if _assumed(result, index) else ''}{_fmt(band[0])}, {_fmt(band[1])}]"


def _assumed(result: WhatIfResult, index: int) -> bool:
    iv = result.intervals
    return iv is not None and iv.kinds.get(result.results[index].point.device) == "assumptions"


def answer_lines(result: WhatIfResult) -> list[str]:
    """The answer (the front's best point on the first objective) with its range, and whether
    another front point beats it in some draw: a choice that flips inside the interval is a
    tie, and is said to be one. Nothing when the front was not redrawn."""
    iv = result.intervals
    if iv is None:
        return []
    first = result.spec.objectives[0]
    none = sorted(d for d, k in iv.kinds.items() if k == "none")
    lines: list[str] = []
    if none:
        lines.append(f"no interval for {', '.join(none)}: no calibration data and no [uncertainty] ranges")
    if iv.answer is None:
        return lines
    label = result.results[iv.answer].point.label
    lines.append(
        f"answer (best {first}): {label}: {first}={_with_band(result, iv.answer, first)} "
        f"(90 % over {iv.draws} draws{'; a range over assumptions' if _assumed(result, iv.answer) else ''})"
    )
    if iv.flipped_draws:
        rivals = sorted(iv.flips.items(), key=lambda kv: -kv[1])[:3]
        names = ", ".join(f"{result.results[i].point.label} in {n}" for i, n in rivals)
        lines.append(
            f"  the answer flips inside the interval: another front point is better on {first} "
            f"in {iv.flipped_draws} of {iv.draws} draws ({names})"
        )
    elif iv.tied_draws:
        lines.append(
            f"  no other front point is better on {first} in any of {iv.draws} draws, but one "
            f"equals it in {iv.tied_draws}: a tie on {first}, decided by the other objectives"
        )
    else:
        lines.append(f"  holds in all {iv.draws} draws against the other front points")
    return lines


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}" if math.isfinite(v) else "—"
    return str(v)


def _scatter(result: WhatIfResult, x: str, y: str) -> str:
    with matplotlib.rc_context({"svg.hashsalt": "agbench", "font.size": 8}):
        fig = Figure(figsize=(4.2, 3.2))
        ax = fig.add_subplot(1, 1, 1)
        front = set(result.front)
        labelled: set[str] = set()  # each architecture named once, on whichever points it has
        for arch, colour in ARCH_COLOURS.items():
            pts = [
                r
                for i, r in enumerate(result.results)
                if not r.refused and r.point.arch == arch and i not in front
            ]
            if pts:
                ax.scatter(
                    [r.objectives[x] for r in pts],
                    [r.objectives[y] for r in pts],
                    s=6,
                    c=colour,
                    alpha=0.35,
                    label=arch,
                )
                labelled.add(arch)
            for guard, marker in ((False, "D"), (True, "*")):  # the guard axis: stars are guarded
                fp = [
                    result.results[i]
                    for i in result.front
                    if result.results[i].point.arch == arch
                    and (result.results[i].point.guard not in (None, "off")) == guard
                ]
                if fp:
                    ax.scatter(
                        [r.objectives[x] for r in fp],
                        [r.objectives[y] for r in fp],
                        s=50 if guard else 30,
                        c=colour,
                        edgecolors="black",
                        linewidths=0.8,
                        marker=marker,
                        label=None if arch in labelled else arch,
                    )
                    labelled.add(arch)
        ax.set_xlabel(f"{x} ({UNITS[x]}, {'higher' if OBJECTIVES[x] == 'max' else 'lower'} better)")
        ax.set_ylabel(f"{y} ({UNITS[y]})")
        if labelled:
            ax.legend(fontsize=6, loc="best")
        fig.tight_layout()
        return to_svg(fig)


def render(result: WhatIfResult) -> str:
    s = summary(result)
    objs = result.spec.objectives
    rows = []
    for group in front_groups(result):
        row = result.results[group[0]].to_dict()
        same = f" (+{len(group) - 1} settings with the same figures)" if len(group) > 1 else ""
        rows.append(
            {
                "label": row["label"] + same,
                "objectives": [_with_band(result, group[0], o) for o in objs],
                "bottleneck": row["bottleneck"],
                "why": row["explanation"],
            }
        )
    refused = result.refused[:20]
    return render_template(
        "pareto.html.j2",
        "whatif-templates",
        s=s,
        objectives=", ".join(f"{o} ({OBJECTIVES[o]})" for o in objs),
        head=["point", *objs, "bottleneck", "why"],
        rows=rows,
        figures=[svg(_scatter(result, x, y)) for x, y in combinations(objs, 2)],
        refused=[r.refused for r in refused],
        more=len(result.refused) - len(refused),
        answer=[line.strip() for line in answer_lines(result)],
        answer_note=result.intervals.method if result.intervals is not None else "",
    )


def write_report(result: WhatIfResult, out_dir: Path) -> list[Path]:
    """Write whatif.json, points.csv and pareto.html into ``out_dir``; returns them."""
    out_dir.mkdir(parents=True, exist_ok=True)
    s = summary(result)
    js = out_dir / "whatif.json"
    js.write_text(json.dumps(s, indent=1, default=str), encoding="utf-8")
    table = out_dir / "points.csv"
    rows = s["all"]
    fields = [k for k in rows[0] if k != "time_shares"] if rows else ["label"]
    with table.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=[*fields, "on_front"], extrasaction="ignore")
        writer.writeheader()
        front = set(result.front)
        for i, row in enumerate(rows):
            writer.writerow({**row, "on_front": i in front})
    page = out_dir / "pareto.html"
    page.write_text(render(result), encoding="utf-8")
    return [js, table, page]


__all__ = ["answer_lines", "front_groups", "front_lines", "render", "summary", "write_report"]
