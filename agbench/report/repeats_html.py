"""summary.html's Repeats section (``--repeat N``): each configuration's spread over repeats."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from agbench.results.summary import ConfigurationSummary


def _pct(value: Any) -> str:
    return "n/a" if value is None else f"{100 * float(value):.1f}%"


def repeats_section(configs: Sequence[ConfigurationSummary]) -> str:
    """A table of success rate per repeat, mean ± sd, range and 95 % CIs; "" without repeats."""
    rows = [c for c in configs if c.repeats is not None]
    if not rows:
        return ""
    head = (
        '<tr><th class="l">configuration</th><th>repeats</th><th>success rate by repeat</th>'
        "<th>mean</th><th>sd</th><th>min – max</th><th>95% CI (t)</th><th>95% CI (Wilson, pooled)</th>"
        "<th>tasks always / sometimes solved</th></tr>"
    )
    body = []
    for c in rows:
        r = c.repeats
        assert r is not None
        ci, wilson = r.success_rate_ci95, r.pooled_wilson_ci95
        body.append(
            f'<tr><td class="l">{html.escape(c.architecture.value)} C{html.escape(str(c.concurrency))}'
            f" {html.escape(c.device)}</td><td>{r.repeats}</td>"
            f"<td>{', '.join(_pct(x) for x in r.success_rate_by_repeat)}</td>"
            f"<td>{_pct(r.success_rate_mean)}</td><td>{_pct(r.success_rate_std)}</td>"
            f"<td>{_pct(r.success_rate_min)} – {_pct(r.success_rate_max)}</td>"
            f"<td>{'n/a' if not ci else _pct(ci[0]) + ' – ' + _pct(ci[1])}</td>"
            f"<td>{'n/a' if not wilson else _pct(wilson[0]) + ' – ' + _pct(wilson[1])}</td>"
            f"<td>{r.tasks_always_solved} / {r.tasks_sometimes_solved} of {r.tasks}</td></tr>"
        )
    note = "<p>every repeat counts; the t interval is over the per-repeat success rates</p>"
    return f"<h2>Repeats</h2>{note}<table>{head}{''.join(body)}</table>"


__all__ = ["repeats_section"]
