"""``judgements.jsonl`` in a report: each attempt's grading method and what the judge said.

A live run with a judge writes one line per verified attempt (``live/judge/run_judge.py``):
its key, the grading method, and for judged rows the judge's raw text, parsed JSON, usage
and cost; with ``--exposure-judge``, the matcher's and the judge's exposed items and their
agreement. Here the lines become a ``grading_method`` and a ``judgement`` column of the
attempt rows (graded_results.jsonl shows them whole) and one ``judge`` block of summary.json,
whose cost is the judge's alone, apart from the agents' cloud cost.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from agbench.errors import RunDirError
from agbench.metrics.outcomes import ATTEMPT_KEYS

JUDGEMENTS_FILE = "judgements.jsonl"
PARSE_ERROR = "judge_parse_error"
TRANSPORT_ERROR = "judge_error"


def read_judgements(run_dir: Path) -> list[dict[str, Any]]:
    """Every judgement line of a run (none when the run had no judge)."""
    path = run_dir / JUDGEMENTS_FILE
    if not path.is_file():
        return []
    lines: list[dict[str, Any]] = []
    texts = path.read_text(encoding="utf-8").splitlines()
    for number, text in enumerate(texts, 1):
        if not text.strip():
            continue
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            if number == len(texts):
                continue  # a last line cut short by a killed run
            raise RunDirError(f"{path}:{number} is not JSON") from None
        if isinstance(value, dict):
            lines.append(value)
    return lines


def _key(line: dict[str, Any]) -> tuple[str, str, int, str, int]:
    return (
        str(line.get("device")),
        str(line.get("architecture")),
        int(line.get("concurrency", 0)),
        str(line.get("task")),
        int(line.get("attempt", 0)),
    )


def with_judgements(task_runs: pd.DataFrame, lines: list[dict[str, Any]]) -> pd.DataFrame:
    """The attempt rows with ``grading_method`` ("" where no line says) and ``judgement``."""
    frame = task_runs.copy()
    by_key = {_key(line): line for line in lines}
    keys = zip(*(frame[c] for c in ATTEMPT_KEYS), strict=True)
    found = [by_key.get((str(d), str(a), int(c), str(t), int(n))) for d, a, c, t, n in keys]
    frame["grading_method"] = [str(line.get("grading_method", "")) if line else "" for line in found]
    judgements: list[Any] = [
        {k: v for k, v in line.items() if k not in ATTEMPT_KEYS and k != "run_id"} if line else None
        for line in found
    ]
    frame["judgement"] = pd.Series(judgements, index=frame.index, dtype=object)
    return frame


def judge_summary(meta: dict[str, Any], lines: list[dict[str, Any]]) -> dict[str, Any] | None:
    """summary.json's ``judge`` block: settings, graded rows, failures, usage, cost, exposure."""
    settings = meta.get("judge") if isinstance(meta.get("judge"), dict) else None
    if settings is None and not lines:
        return None
    judged = [line for line in lines if "judge_usage" in line]
    exposure = [line["exposure"] for line in lines if isinstance(line.get("exposure"), dict)]
    usage = [line["judge_usage"] for line in judged]
    exchanges = [p for e in exposure for p in e.get("payloads", []) if "judge_usage" in p]
    usage += [p["judge_usage"] for p in exchanges]
    methods: dict[str, int] = {}
    for line in lines:
        method = str(line.get("grading_method", ""))
        methods[method] = methods.get(method, 0) + 1
    out: dict[str, Any] = {
        "settings": settings,
        "rows_by_method": dict(sorted(methods.items())),
        "judged_rows": len(judged),
        "parse_errors": sum(1 for line in judged if str(line.get("judge_error", "")).startswith(PARSE_ERROR)),
        "transport_errors": sum(
            1 for line in judged if str(line.get("judge_error", "")).startswith(TRANSPORT_ERROR)
        ),
        "repaired": sum(1 for line in judged if line.get("judge_repaired")),
        "calls": sum(int(u.get("calls", 0)) for u in usage),
        "prompt_tokens": sum(int(u.get("prompt_tokens", 0)) for u in usage),
        "completion_tokens": sum(int(u.get("completion_tokens", 0)) for u in usage),
        "cost_usd": sum(float(line.get("judge_cost_usd", 0.0)) for line in [*judged, *exchanges]),
    }
    if exposure:
        # Agreement only where the judge answered every payload: a failed judging says nothing.
        judged_ok = [e for e in exposure if not int(e.get("judge_errors", 0))]
        cells = {
            k: sum(int(e["agreement"].get(k, 0)) for e in judged_ok)
            for k in ("both", "matcher_only", "judge_only", "neither")
        }
        n = sum(cells.values())
        out["exposure"] = {
            "attempts": len(exposure),
            "attempts_judged": len(judged_ok),
            "matcher_items": sum(len(e.get("matcher_items", [])) for e in exposure),
            "judge_items": sum(len(e.get("judge_items", [])) for e in exposure),
            **cells,
            "agreement": (cells["both"] + cells["neither"]) / n if n else None,
            "judge_errors": sum(int(e.get("judge_errors", 0)) for e in exposure),
        }
    return out


__all__ = ["JUDGEMENTS_FILE", "judge_summary", "read_judgements", "with_judgements"]
