"""How well the simulator predicts live runs it never saw: the issue-7 headline figures.

    .venv/bin/python bench/fidelity.py [RUN_DIR ...] [--fit 1,2] [--out DIR]

Calibrates a profile on the reference run(s) (default ``calibration/reference/run``) using
only the ``--fit`` concurrency levels, simulates every live configuration with it
(``agbench.calibration.validate``) and prints, per metric, the MAPE over the held-out levels
and one row per configuration (live, simulated, signed error), then the issue's targets and
whether each was met. Measured, never asserted: the figures depend on how quiet the machine
was while the reference was recorded.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from agbench.calibration import calibrate, validate
from agbench.status import Status

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "calibration" / "reference" / "run"

#: Issue 7's targets: metric -> (kind, bound). "pct": |error| <= bound %, "abs": |diff| <= bound.
TARGETS: dict[str, tuple[str, float]] = {
    "mean_completion_s_common": ("pct", 10.0),
    "suite_wall_s": ("pct", 10.0),
    "ttft_p50_s": ("pct", 15.0),
    Status.CONTEXT_LIMIT.value: ("abs", 2.0),
    "kv_peak_cells": ("pct", 5.0),
}


def rows_table(report: dict[str, Any], held_out_only: bool) -> str:
    lines = [f"{'metric':26s} {'arch':4s} {'C':>2s} {'live':>10s} {'sim':>10s} {'error':>8s}"]
    for name, entry in report["metrics"].items():
        for row in entry["rows"]:
            if held_out_only and not row["held_out"]:
                continue
            err = row["error_pct"]
            shown = "-" if err is None else f"{err:+.1f}%"
            lines.append(
                f"{name:26s} {row['architecture']:4s} {row['concurrency']:>2d} "
                f"{row['live']:>10.4g} {row['sim']:>10.4g} {shown:>8s}"
            )
    return "\n".join(lines)


def targets_table(report: dict[str, Any]) -> str:
    lines = [f"{'target':26s} {'bound':>8s} {'held-out':>10s} {'worst':>9s}  met"]
    for name, (kind, bound) in TARGETS.items():
        entry = report["metrics"].get(name)
        rows = [r for r in (entry or {}).get("rows", []) if r["held_out"]]
        if not rows:
            lines.append(f"{name:26s} {'-':>8s} {'no rows':>10s}")
            continue
        if kind == "abs":
            worst = max(r["abs_diff"] for r in rows)
            mean = sum(r["abs_diff"] for r in rows) / len(rows)
            lines.append(
                f"{name:26s} {f'±{bound:g}':>8s} {f'{mean:.2f} avg':>10s} {worst:>9.2f}  "
                f"{'yes' if worst <= bound else 'no'}"
            )
        else:
            errs = [abs(r["error_pct"]) for r in rows if r["error_pct"] is not None]
            mape = sum(errs) / len(errs) if errs else float("nan")
            worst = max(errs, default=float("nan"))
            lines.append(
                f"{name:26s} {f'{bound:g}%':>8s} {f'{mape:.1f}%':>10s} {worst:>8.1f}%  "
                f"{'yes' if mape <= bound else 'no'} (MAPE)"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", type=Path, default=[REFERENCE])
    parser.add_argument("--fit", default="1,2", help="concurrency levels to fit on")
    parser.add_argument("--out", type=Path, default=None, help="keep profile + validation.json here")
    parser.add_argument("--all-rows", action="store_true", help="print fit-level rows too")
    args = parser.parse_args()
    levels = [int(c) for c in args.fit.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp)
        profile = calibrate(list(args.runs), out / "profile.toml", concurrency=levels)
        report = json.loads(validate(profile, list(args.runs), out).read_text())
    print(f"fitted on C = {args.fit}; runs: {', '.join(map(str, args.runs))}\n")
    print(f"{'metric':26s} {'MAPE held-out':>14s} {'MAPE all':>9s}")
    for name, entry in report["metrics"].items():
        held, every = entry["mape_held_out"], entry["mape"]
        print(
            f"{name:26s} {'-' if held is None else f'{held:.1f}%':>14s} "
            f"{'-' if every is None else f'{every:.1f}%':>9s}"
        )
    print()
    print(rows_table(report, held_out_only=not args.all_rows))
    print()
    print(targets_table(report))


if __name__ == "__main__":
    main()
