"""summary.html's Privacy guard section (``--privacy-guard``): what the guard kept from the
cloud, how well its detector did against the declared items, and what it cost."""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agbench.results.summary import ConfigurationSummary


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * float(value):.1f}%"


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{float(value):.3g}"


def _by(mapping: Mapping[str, Any], fmt: Callable[[Any], str] = str) -> str:
    if not mapping:
        return "–"
    return ", ".join(f"{html.escape(str(k))} {fmt(v)}" for k, v in mapping.items())


def privacy_section(configs: Sequence[ConfigurationSummary]) -> str:
    """A table per guarded configuration; "" when no configuration ran with a guard."""
    rows = [(c, c.privacy_guard) for c in configs if c.privacy_guard is not None]
    if not rows:
        return ""
    head = (
        '<tr><th class="l">configuration</th><th>guard</th><th>exposure without → with</th>'
        "<th>recall</th><th>recall by kind</th><th>precision</th><th>false positives</th>"
        "<th>redacted spans</th><th>blocked calls (attempts)</th><th>failed with guard</th>"
        "<th>success cost</th><th>guard ms p50 / p99</th></tr>"
    )
    body = []
    for c, g in rows:
        label = f"{c.architecture.value} C{c.concurrency} {c.device}"
        if c.tag:
            label = f"{c.tag}: {label}"
        body.append(
            f'<tr><td class="l">{html.escape(label)}</td>'
            f"<td>{html.escape(g.mode)} / {html.escape(g.detector)}</td>"
            f"<td>{_pct(g.exposure_ratio_unguarded)} → {_pct(c.exposure_ratio)}</td>"
            f"<td>{_pct(g.recall)}</td><td>{_by(g.recall_by_kind, _pct)}</td>"
            f"<td>{_pct(g.precision)}</td><td>{_by(g.false_positive_by_label)}</td>"
            f"<td>{g.redacted_spans}</td>"
            f"<td>{g.blocked_calls} ({g.blocked_attempts})</td>"
            f"<td>{g.failed_with_guard}</td><td>{_pct(g.success_cost)}</td>"
            f"<td>{_num(g.guard_ms_p50)} / {_num(g.guard_ms_p99)}</td></tr>"
        )
    note = (
        "<p>exposure without the guard: what the cloud-bound requests carried before the guard; with: "
        "what the cloud saw (the configuration's exposure). Recall: share of the carried declared items "
        "kept from the cloud, by declared kind; precision: share of the flagged values that were declared "
        "items. A blocked call (<code>privacy_blocked</code>) is a cloud request the guard refused: "
        "nothing was sent, and the agent's architecture decided what followed (a CO or HCL lead ends the "
        "attempt, an HLL consultation fails and the local lead goes on). Success cost: the unguarded "
        "run's success rate minus this one's, where both are compared (<code>agbench report RUN_OFF "
        "RUN_GUARD</code>). Names, organisations and places are not detected by <code>presidio</code> "
        "(no named-entity model is installed).</p>"
    )
    return f"<h2>Privacy guard</h2>{note}<table>{head}{''.join(body)}</table>"


__all__ = ["privacy_section"]
