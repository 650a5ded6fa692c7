"""summary.html's Repeats section (``--repeat N``): each configuration's spread over repeats.

The figures are formatted here; templates/repeats.html.j2 lays them out (and escapes them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from markupsafe import Markup

from agbench.report.templating import render_markup
from agbench.results.summary import ConfigurationSummary


def _pct(value: Any) -> str:
    return "n/a" if value is None else f"{100 * float(value):.1f}%"


def _interval(ci: list[float] | None) -> str:
    return "n/a" if not ci else f"{_pct(ci[0])} – {_pct(ci[1])}"


def repeats_section(configs: Sequence[ConfigurationSummary]) -> Markup:
    """A table of success rate per repeat, mean ± sd, range and 95 % CIs; "" without repeats."""
    rows = []
    for c in configs:
        r = c.repeats
        if r is None:
            continue
        rows.append(
            {
                "label": f"{c.architecture.value} C{c.concurrency} {c.device}",
                "repeats": r.repeats,
                "by_repeat": ", ".join(_pct(x) for x in r.success_rate_by_repeat),
                "mean": _pct(r.success_rate_mean),
                "sd": _pct(r.success_rate_std),
                "range": f"{_pct(r.success_rate_min)} – {_pct(r.success_rate_max)}",
                "ci_t": _interval(r.success_rate_ci95),
                "ci_wilson": _interval(r.pooled_wilson_ci95),
                "solved": f"{r.tasks_always_solved} / {r.tasks_sometimes_solved} of {r.tasks}",
            }
        )
    return render_markup("repeats.html.j2", rows=rows) if rows else Markup("")


__all__ = ["repeats_section"]
