"""The privacy guard's figures per configuration: summary.json's ``privacy_guard`` object.

Computed from ``privacy_guard.jsonl`` (one line per guarded attempt, written by the live
proxy's guard; ``live/privacy/report_lines.py``), over the counted attempts only, like every
other figure. Definitions (docs/privacy.md):

- ``exposure_ratio_unguarded``: distinct (task, item) pairs that the cloud-bound requests
  carried *before* the guard / the tasks' sensitive items (what the cloud would have seen);
  the configuration's own ``exposure_ratio`` stays what it did see, after the guard;
- ``recall`` (and ``recall_by_kind``, per declared kind): of the items the requests carried,
  the share the guard kept from the cloud; null when no item was carried;
- ``precision``: of the distinct values the detector flagged, the share that were a declared
  item (each attempt's values counted once); null when nothing was flagged;
- ``blocked_calls`` / ``blocked_attempts``: requests refused (``--privacy-guard block``) and
  counted attempts with at least one refusal; ``failed_with_guard``: counted attempts that
  did not succeed although (or because) the guard redacted or refused something, the upper
  bound of the success the guard cost in this run; ``success_cost`` is filled in where an
  unguarded run of the same configuration is compared (``with_success_cost``);
- ``guard_ms_p50`` / ``guard_ms_p99``: the guard's time per cloud call (detection and
  rewriting; the restore of the answer is streamed and not included).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from agbench.results.summary import ConfigurationSummary, PrivacyGuardSummary, RunSummary

GUARD_FILE = "privacy_guard.jsonl"
_KEYS = ("device", "architecture", "concurrency", "task", "attempt")


def read_guard_lines(run_dir: Path) -> list[dict[str, Any]]:
    """The run's guard lines (empty when the run had no guard); bad lines are skipped."""
    path = Path(run_dir) / GUARD_FILE
    if not path.is_file():
        return []
    lines: list[dict[str, Any]] = []
    for text in path.read_text(encoding="utf-8").splitlines():
        try:
            line = json.loads(text)
        except ValueError:
            continue
        if isinstance(line, dict):
            lines.append(line)
    return lines


def _ratio(num: float, den: float) -> float | None:
    return round(num / den, 6) if den else None


def guard_figures(lines: list[dict[str, Any]], rows: pd.DataFrame) -> PrivacyGuardSummary | None:
    """One configuration's ``privacy_guard`` object from its counted attempts ``rows``."""
    columns = [
        rows[c].astype(str) for c in ("device", "architecture", "concurrency", "task", "attempt", "status")
    ]
    counted = {(d, a, int(c), t, int(n)): status for d, a, c, t, n, status in zip(*columns, strict=True)}
    mine = [(line, counted[k]) for line in lines if (k := tuple(line.get(n) for n in _KEYS)) in counted]
    if not mine:
        return None
    carried: Counter[str] = Counter()
    kept: Counter[str] = Counter()
    unguarded_pairs: set[tuple[str, int]] = set()
    tp: Counter[str] = Counter()
    fp: Counter[str] = Counter()
    seconds: list[float] = []
    for line, _status in mine:
        kinds = list(line.get("kinds") or [])
        exposed = set(line.get("exposed_items") or [])
        for index in line.get("unguarded_items") or []:
            kind = kinds[index] if index < len(kinds) else ""
            carried[kind] += 1
            kept[kind] += index not in exposed
            unguarded_pairs.add((str(line["task"]), int(index)))
        tp.update(line.get("true_positive_by_kind") or {})
        fp.update(line.get("false_positive_by_label") or {})
        seconds.extend(float(s) for s in line.get("guard_s") or [])
    first = mine[0][0]
    total = int(rows["sensitive_total"].sum())
    flagged = sum(tp.values()) + sum(fp.values())
    touched = [
        (line, status) for line, status in mine if line.get("redacted_spans") or line.get("blocked_calls")
    ]
    ms = np.asarray(seconds) * 1000.0
    return PrivacyGuardSummary(
        mode=str(first.get("mode")),
        detector=str(first.get("detector")),
        entities=first.get("entities") or [],
        threshold=first.get("threshold"),
        attempts=len(mine),
        calls=sum(int(line.get("calls", 0)) for line, _ in mine),
        exposure_ratio_unguarded=min(1.0, len(unguarded_pairs) / total) if total else 0.0,
        sensitive_in_requests=len(unguarded_pairs),
        recall=_ratio(sum(kept.values()), sum(carried.values())),
        recall_by_kind={k: _ratio(kept[k], carried[k]) for k in sorted(carried)},
        precision=_ratio(sum(tp.values()), flagged),
        true_positive_by_kind=dict(sorted(tp.items())),
        false_positive_by_label=dict(sorted(fp.items())),
        redacted_spans=sum(int(line.get("redacted_spans", 0)) for line, _ in mine),
        blocked_calls=sum(int(line.get("blocked_calls", 0)) for line, _ in mine),
        blocked_attempts=sum(1 for line, _ in mine if line.get("blocked_calls")),
        failed_with_guard=sum(1 for _, status in touched if status != "success"),
        success_cost=None,
        guard_ms_p50=round(float(np.percentile(ms, 50)), 4) if len(ms) else None,
        guard_ms_p99=round(float(np.percentile(ms, 99)), 4) if len(ms) else None,
    )


def add_guard_figures(summary: RunSummary, lines: list[dict[str, Any]], counted: pd.DataFrame) -> None:
    """Each configuration of ``summary`` gets its ``privacy_guard`` figures, where it had a guard."""
    if not lines:
        return
    for conf in summary.configurations:
        rows = counted[
            (counted["device"].astype(str) == conf.device)
            & (counted["architecture"].astype(str) == conf.architecture.value)
            & (counted["concurrency"].astype(int) == conf.concurrency)
        ]
        figures = guard_figures(lines, rows)
        if figures is not None:
            conf.privacy_guard = figures


def with_success_cost(configurations: list[ConfigurationSummary]) -> None:
    """Where a guarded configuration sits beside an unguarded run of the same device, architecture
    and concurrency (a comparison), its ``success_cost`` = unguarded success rate - guarded.

    The guarded configuration gets its own copy of the guard figures (a comparison's
    configurations are shallow copies of the runs' own)."""
    plain = {c.key: c.success_rate for c in configurations if c.privacy_guard is None}
    for conf in configurations:
        guard = conf.privacy_guard
        unguarded = plain.get(conf.key)
        if guard is None or unguarded is None or conf.success_rate is None:
            continue
        cost = round(unguarded - conf.success_rate, 6)
        conf.privacy_guard = guard.model_copy(update={"success_cost": cost})


__all__ = ["GUARD_FILE", "add_guard_figures", "guard_figures", "read_guard_lines", "with_success_cost"]
