"""summary.html's Privacy guard section (``--privacy-guard``): what the guard kept from the
cloud, how well its detector did against the declared items, and what it cost.

The figures are formatted here; templates/privacy.html.j2 lays them out (and escapes them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from markupsafe import Markup

from agbench.report.templating import render_markup
from agbench.results.summary import ConfigurationSummary


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * float(value):.1f}%"


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{float(value):.3g}"


def _by(mapping: Mapping[str, Any], fmt: Callable[[Any], str] = str) -> str:
    if not mapping:
        return "–"
    return ", ".join(f"{k} {fmt(v)}" for k, v in mapping.items())


def privacy_section(configs: Sequence[ConfigurationSummary]) -> Markup:
    """A table per guarded configuration; "" when no configuration ran with a guard."""
    rows = []
    for c in configs:
        g = c.privacy_guard
        if g is None:
            continue
        label = f"{c.architecture.value} C{c.concurrency} {c.device}"
        rows.append(
            {
                "label": f"{c.tag}: {label}" if c.tag else label,
                "guard": f"{g.mode} / {g.detector}",
                "exposure": f"{_pct(g.exposure_ratio_unguarded)} → {_pct(c.exposure_ratio)}",
                "recall": _pct(g.recall),
                "recall_by_kind": _by(g.recall_by_kind, _pct),
                "precision": _pct(g.precision),
                "false_positives": _by(g.false_positive_by_label),
                "redacted_spans": g.redacted_spans,
                "blocked": f"{g.blocked_calls} ({g.blocked_attempts})",
                "failed_with_guard": g.failed_with_guard,
                "success_cost": _pct(g.success_cost),
                "guard_ms": f"{_num(g.guard_ms_p50)} / {_num(g.guard_ms_p99)}",
            }
        )
    return render_markup("privacy.html.j2", rows=rows) if rows else Markup("")


__all__ = ["privacy_section"]
