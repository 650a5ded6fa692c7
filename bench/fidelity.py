"""How well the simulator predicts live runs it never saw: the held-out figures.

    .venv/bin/python bench/fidelity.py [RUN_DIR ...] [--fit 1,2] [--fit-levels 2] [--out DIR]

For every reference run (default: each of ``calibration/reference/{run,model,load}`` that this
checkout holds) it fits a profile on part of the run and predicts the rest, then prints the
held-out rows and the targets with whether each was met:

- an agent sweep (replay agent, or the model agent's run with its extracted trajectories):
  ``agbench calibrate --fit-concurrency 1,2`` then ``agbench validate``; held out: C = 4, 8;
- an open-loop load run (``agbench load``): ``agbench calibrate --fit-levels 2`` (the two
  lowest offered rates) then ``agbench validate``; held out: the higher rates.

Measured, never asserted: the figures depend on how quiet the machine was while the reference
was recorded (each reference's README entry says what the load average was).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agbench.calibration import calibrate, validate
from agbench.calibration.load_fit import calibrate_load, validate_load
from agbench.status import Status

ROOT = Path(__file__).resolve().parents[1]
REFERENCE_DIR = ROOT / "calibration" / "reference"
#: The committed reference runs, in the order they are reported.
REFERENCES = (REFERENCE_DIR / "run", REFERENCE_DIR / "model", REFERENCE_DIR / "load")


@dataclass(frozen=True)
class Target:
    """One fidelity target. ``pct``: the held-out MAPE is at most ``bound`` %;
    ``each_pct``: every held-out row is within ``bound`` %; ``abs``: every held-out row's
    absolute difference is at most ``bound`` (counts per configuration)."""

    metric: str
    kind: str
    bound: float
    label: str


SWEEP_TARGETS = (
    Target("mean_completion_s_common", "pct", 5.0, "mean completion"),
    Target("suite_wall_s", "pct", 5.0, "suite wall"),
    Target("ttft_p50_s", "pct", 10.0, "TTFT p50"),
    Target("kv_peak_cells", "pct", 5.0, "peak KV"),
    Target(Status.CONTEXT_LIMIT.value, "abs", 1.0, "context-limit count"),
    Target(Status.SUCCESS.value, "abs", 0.0, "success count"),
)
LOAD_TARGETS = (
    Target("ttft_p50_s", "each_pct", 10.0, "TTFT p50"),
    Target("ttft_p90_s", "each_pct", 10.0, "TTFT p90"),
    Target("e2e_p50_s", "each_pct", 10.0, "e2e p50"),
    Target("e2e_p90_s", "each_pct", 10.0, "e2e p90"),
)


def is_load_run(run_dir: Path) -> bool:
    """Whether ``run_dir`` was made by ``agbench load`` (its run.json says so)."""
    meta = json.loads((run_dir / "run.json").read_text())
    return meta.get("agent_kind") in ("load", "sim-load")


def held_out_report(run_dir: Path, out: Path, fit: list[int], fit_levels: int) -> dict[str, Any]:
    """Fit on the run's low levels, predict all of it; the validation report (validation.json)."""
    out.mkdir(parents=True, exist_ok=True)
    profile = out / "profile.toml"
    if is_load_run(run_dir):
        calibrate_load(run_dir, profile, fit_levels)
        return dict(json.loads(validate_load(profile, run_dir, out).read_text()))
    calibrate([run_dir], profile, concurrency=fit)
    return dict(json.loads(validate(profile, [run_dir], out).read_text()))


def _row_key(row: dict[str, Any]) -> str:
    if "level" in row:
        return f"{row['level']:>16s}"
    return f"{row['architecture']:>4s} C={row['concurrency']:<3d}"


def rows_table(report: dict[str, Any], targets: tuple[Target, ...], held_out_only: bool) -> str:
    """One line per (target metric, configuration or level): live, simulated, signed error."""
    lines = [f"{'metric':26s} {'where':>16s} {'live':>10s} {'sim':>10s} {'error':>9s}"]
    for target in targets:
        for row in report["metrics"].get(target.metric, {}).get("rows", []):
            if held_out_only and not row["held_out"]:
                continue
            err = row.get("error_pct")
            shown = "-" if err is None else f"{err:+.1f}%"
            live, sim = row.get("live"), row.get("sim")
            lines.append(
                f"{target.metric:26s} {_row_key(row):>16s} "
                f"{'-' if live is None else f'{live:.4g}':>10s} {'-' if sim is None else f'{sim:.4g}':>10s} "
                f"{shown:>9s}"
            )
    return "\n".join(lines)


def judge(report: dict[str, Any], target: Target) -> dict[str, Any]:
    """The held-out figure of one target and whether it was met."""
    rows = [r for r in report["metrics"].get(target.metric, {}).get("rows", []) if r["held_out"]]
    if target.kind == "abs":
        diffs = [abs(float(r["sim"]) - float(r["live"])) for r in rows if r.get("sim") is not None]
        worst = max(diffs, default=None)
        met = worst is not None and worst <= target.bound
        return {"figure": worst, "worst": worst, "met": met, "rows": len(diffs)}
    errs = [abs(float(r["error_pct"])) for r in rows if r.get("error_pct") is not None]
    mape = sum(errs) / len(errs) if errs else None
    worst = max(errs, default=None)
    figure = worst if target.kind == "each_pct" else mape
    met = figure is not None and figure <= target.bound
    return {"figure": figure, "mape": mape, "worst": worst, "met": met, "rows": len(errs)}


def targets_table(report: dict[str, Any], targets: tuple[Target, ...]) -> str:
    lines = [f"{'target':22s} {'bound':>14s} {'held-out':>14s} {'worst':>9s}  met"]
    for target in targets:
        verdict = judge(report, target)
        if not verdict["rows"]:
            # mean completion is over the tasks every architecture solved: none, no figure
            lines.append(f"{target.label:22s} {'-':>14s} {'no rows':>14s}  (nothing to compare)")
            continue
        if target.kind == "abs":
            bound = "exact" if target.bound == 0 else f"±{target.bound:g} per cfg"
            figure = f"{verdict['figure']:.0f} off"
            worst = f"{verdict['worst']:.0f}"
        else:
            bound = f"{target.bound:g}% " + ("each" if target.kind == "each_pct" else "MAPE")
            figure = f"{verdict['mape']:.1f}% MAPE"
            worst = f"{verdict['worst']:.1f}%"
        lines.append(
            f"{target.label:22s} {bound:>14s} {figure:>14s} {worst:>9s}  {'yes' if verdict['met'] else 'NO'}"
        )
    return "\n".join(lines)


def print_report(run_dir: Path, report: dict[str, Any], all_rows: bool) -> None:
    load = report.get("kind") == "load"
    targets = LOAD_TARGETS if load else SWEEP_TARGETS
    fitted = ", ".join(report["fitted_levels"]) if load else f"C = {report['fit_concurrency']}"
    print(f"== {run_dir} ({'open-loop load' if load else 'agent sweep'}; fitted on {fitted})\n")
    print(rows_table(report, targets, held_out_only=not all_rows))
    print()
    print(targets_table(report, targets))
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("runs", nargs="*", type=Path, help="default: every committed reference run")
    parser.add_argument("--fit", default="1,2", help="sweeps: concurrency levels to fit on")
    parser.add_argument("--fit-levels", type=int, default=2, help="load runs: lowest rates to fit on")
    parser.add_argument("--out", type=Path, default=None, help="keep profile + validation.json per run here")
    parser.add_argument("--all-rows", action="store_true", help="print fit-level rows too")
    args = parser.parse_args()
    runs = list(args.runs) or [r for r in REFERENCES if (r / "run.json").is_file()]
    if not runs:
        parser.error("no reference run in this checkout; name a run directory")
    fit = [int(c) for c in args.fit.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        base = args.out or Path(tmp)
        for i, run_dir in enumerate(runs):
            if not (run_dir / "run.json").is_file():
                parser.error(f"{run_dir} is not a run directory (no run.json)")
            report = held_out_report(run_dir, base / f"{i}-{run_dir.name}", fit, args.fit_levels)
            print_report(run_dir, report, args.all_rows)


if __name__ == "__main__":
    main()
