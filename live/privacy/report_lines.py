"""``privacy_guard.jsonl``: one line per guarded attempt, what summary.json's guard figures
are computed from (``agbench.metrics.privacy``).

A line holds the attempt's identity, the guard's settings and counters, each declared item's
kind, and which items (by their index in the task's list) reached the cloud without the
guard and with it. It never holds a value or a placeholder: the placeholder map stays in the
proxy's memory and is dropped with the attempt.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agbench.attempt import AttemptKey
from agbench.metrics.privacy import GUARD_FILE


def write_guard_line(run_dir: Path, key: AttemptKey, report: dict[str, Any] | None) -> None:
    """Append one attempt's guard report (nothing without a guard)."""
    if report is None:
        return
    line = {**key.ids(), **report}
    with (run_dir / GUARD_FILE).open("a", encoding="utf-8") as f:
        f.write(json.dumps(line, sort_keys=True) + "\n")


__all__ = ["GUARD_FILE", "write_guard_line"]
