"""How well the simulator predicts live runs it never saw, per set, against the targets.

    .venv/bin/python bench/fidelity.py [RUN_DIR ...] [--fit 1,2] [--fit-levels 2] [--draws N] [--out DIR]

Two sets, reported apart:

- **development**: ``calibration/reference/{run,model,load}`` (scored after every change; the
  mechanisms were designed on it) with ``calibration/reference/server_profile.toml``;
- **test**: every ``calibration/reference/test-*/`` (recorded once from a frozen commit, never
  used to choose a mechanism), each with its own ``server_profile.toml``.

For each agent sweep two protocols are printed:

1. **profile + C = 1** (the documented path): ``agbench calibrate RUN --server-profile
   SET/server_profile.toml --fit-concurrency 1``, then ``agbench validate --draws N``; held out:
   every level above 1. Scored against the full target list (worst row, outcome agreement,
   Brier, 90 % interval coverage included);
2. **fit C = 1, 2** (the comparison kept from before): ``agbench calibrate --fit-concurrency
   1,2`` then ``agbench validate``; held out: C = 4, 8.

An open-loop load run (``agbench load``) is fitted on its two lowest rates and judged on the
others. Measured, never asserted: the figures depend on how quiet the machine was while the
reference was recorded (each reference's README entry says what the load average was).
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
#: The committed development runs, in the order they are reported, and their server profile.
REFERENCES = (REFERENCE_DIR / "run", REFERENCE_DIR / "model", REFERENCE_DIR / "load")
DEV_PROFILE = REFERENCE_DIR / "dev-profile" / "server_profile.toml"
PROFILE_FILE = "server_profile.toml"


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
#: The timing metrics whose every held-out row must be within WORST_ROW_PCT.
WORST_ROW_METRICS = ("mean_completion_s_common", "suite_wall_s", "ttft_p50_s")
WORST_ROW_PCT = 15.0
OUTCOME_AGREEMENT_MIN = 0.90
BRIER_MAX = 0.10
COVERAGE_MIN = 0.80
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


def held_out_report(
    run_dir: Path,
    out: Path,
    fit: list[int],
    fit_levels: int,
    server_profile: Path | None = None,
    draws: int = 0,
) -> dict[str, Any]:
    """Fit on the run's low levels (with ``server_profile``: its rates, and C = ``fit`` for the
    behaviour), predict all of it; the validation report (validation.json)."""
    out.mkdir(parents=True, exist_ok=True)
    profile = out / "profile.toml"
    if is_load_run(run_dir):
        calibrate_load(run_dir, profile, fit_levels)
        return dict(json.loads(validate_load(profile, run_dir, out).read_text()))
    calibrate([run_dir], profile, concurrency=fit, server_profile=server_profile)
    return dict(json.loads(validate(profile, [run_dir], out, draws=draws).read_text()))


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
    """The held-out figure of one target and whether it was met (a row missing on either side
    is a miss: the target is then not met)."""
    rows = [r for r in report["metrics"].get(target.metric, {}).get("rows", []) if r["held_out"]]
    missing = sum(bool(r.get("missing")) for r in rows)
    if target.kind == "abs":
        diffs = [float(r["abs_diff"]) for r in rows if r.get("abs_diff") is not None]
        worst = max(diffs, default=None)
        met = worst is not None and worst <= target.bound and not missing
        return {"figure": worst, "worst": worst, "met": met, "rows": len(rows), "missing": missing}
    errs = [abs(float(r["error_pct"])) for r in rows if r.get("error_pct") is not None]
    mape = sum(errs) / len(errs) if errs else None
    worst = max(errs, default=None)
    figure = worst if target.kind == "each_pct" else mape
    met = figure is not None and figure <= target.bound and not missing
    return {"figure": figure, "mape": mape, "worst": worst, "met": met, "rows": len(rows), "missing": missing}


def targets_table(report: dict[str, Any], targets: tuple[Target, ...]) -> str:
    lines = [f"{'target':22s} {'bound':>14s} {'held-out':>14s} {'worst':>9s}  met"]
    for target in targets:
        verdict = judge(report, target)
        if not verdict["rows"]:
            # mean completion is over the tasks every architecture solved: none, no figure
            lines.append(f"{target.label:22s} {'-':>14s} {'no rows':>14s}  (nothing to compare)")
            continue
        if verdict["figure"] is None:
            lines.append(f"{target.label:22s} {'-':>14s} {'all missing':>14s}  NO")
            continue
        if target.kind == "abs":
            bound = "exact" if target.bound == 0 else f"±{target.bound:g} per cfg"
            figure = f"{verdict['figure']:.0f} off"
            worst = f"{verdict['worst']:.0f}"
        else:
            bound = f"{target.bound:g}% " + ("each" if target.kind == "each_pct" else "MAPE")
            figure = f"{verdict['mape']:.1f}% MAPE"
            worst = f"{verdict['worst']:.1f}%"
        note = f" ({verdict['missing']} row(s) missing on one side)" if verdict["missing"] else ""
        lines.append(
            f"{target.label:22s} {bound:>14s} {figure:>14s} {worst:>9s}  {'yes' if verdict['met'] else 'NO'}{note}"
        )
    return "\n".join(lines)


def extra_targets_table(report: dict[str, Any]) -> str:
    """The targets beyond the per-metric ones: worst row, outcomes, Brier, interval coverage."""
    lines: list[str] = []
    if not any(r["held_out"] for m in report["metrics"].values() for r in m.get("rows", [])):
        return ""
    worst = [
        (m, abs(float(w["error_pct"])) if w.get("error_pct") is not None else float("inf"))
        for m in WORST_ROW_METRICS
        if (w := report["metrics"].get(m, {}).get("worst_row"))
    ]
    if worst:
        metric, figure = max(worst, key=lambda x: x[1])
        lines.append(
            f"{'worst timing row':22s} {f'{WORST_ROW_PCT:g}% each':>14s} {f'{figure:.1f}%':>14s} "
            f"{metric[:9]:>9s}  {'yes' if figure <= WORST_ROW_PCT else 'NO'}"
        )
    agreement = report.get("outcome_agreement", {}).get("held_out")
    score = (report.get("brier") or {}).get("held_out")
    if agreement is not None:
        met = agreement >= OUTCOME_AGREEMENT_MIN or (score is not None and score <= BRIER_MAX)
        lines.append(
            f"{'outcome agreement':22s} {f'>= {OUTCOME_AGREEMENT_MIN:.0%}':>14s} {f'{agreement:.1%}':>14s} "
            f"{'':>9s}  {'yes' if met else 'NO'}"
        )
    if score is not None:
        lines.append(
            f"{'Brier (failure prob.)':22s} {f'<= {BRIER_MAX:g}':>14s} {f'{score:.3f}':>14s} "
            f"{'':>9s}  {'yes' if score <= BRIER_MAX else 'NO'}"
        )
    covered = inside = 0
    for metric in WORST_ROW_METRICS:
        for row in report["metrics"].get(metric, {}).get("rows", []):
            if row["held_out"] and row.get("sim_p05") is not None and row.get("live") is not None:
                covered += 1
                inside += row["sim_p05"] <= row["live"] <= row["sim_p95"]
    if covered:
        share = inside / covered
        lines.append(
            f"{'90% interval coverage':22s} {f'>= {COVERAGE_MIN:.0%}':>14s} {f'{share:.0%} of {covered}':>14s} "
            f"{'':>9s}  {'yes' if share >= COVERAGE_MIN else 'NO'}"
        )
    saturated = report["metrics"].get("kv_peak_cells", {}).get("saturated_rows")
    if saturated:
        lines.append(
            f"(peak KV: {saturated} held-out row(s) at the pool cap on both sides, scored as misses)"
        )
    for text in report.get("range_warnings", [])[:6]:
        lines.append(f"(outside the server profile: {text})")
    return "\n".join(lines)


def print_report(run_dir: Path, report: dict[str, Any], all_rows: bool, title: str = "") -> None:
    load = report.get("kind") == "load"
    targets = LOAD_TARGETS if load else SWEEP_TARGETS
    fitted = ", ".join(report["fitted_levels"]) if load else f"C = {report['fit_concurrency']}"
    if report.get("server_profile"):
        fitted += f" + server profile {report['server_profile']}"
    print(f"== {title}{run_dir} ({'open-loop load' if load else 'agent sweep'}; fitted on {fitted})\n")
    print(rows_table(report, targets, held_out_only=not all_rows))
    print()
    print(targets_table(report, targets))
    if not load:
        extra = extra_targets_table(report)
        if extra:
            print(extra)
    print()


def sets(runs: list[Path]) -> list[tuple[str, list[Path], Path | None]]:
    """(name, runs, server profile) per set: the runs named, else development and every test set."""
    if runs:
        return [("named", runs, None)]
    dev = [r for r in REFERENCES if (r / "run.json").is_file()]
    out: list[tuple[str, list[Path], Path | None]] = [
        ("development", dev, DEV_PROFILE if DEV_PROFILE.is_file() else None)
    ]
    for folder in sorted(REFERENCE_DIR.glob("test-*")):
        test_runs = [r for r in (folder / "run",) if (r / "run.json").is_file()]
        profile = folder / PROFILE_FILE
        if test_runs:
            out.append((f"test {folder.name}", test_runs, profile if profile.is_file() else None))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("runs", nargs="*", type=Path, help="default: development and test sets")
    parser.add_argument("--fit", default="1,2", help="comparison protocol: concurrency levels to fit on")
    parser.add_argument("--fit-levels", type=int, default=2, help="load runs: lowest rates to fit on")
    parser.add_argument("--server-profile", type=Path, default=None, help="for named runs: their profile")
    parser.add_argument("--draws", type=int, default=10, help="interval draws (profile protocol)")
    parser.add_argument("--out", type=Path, default=None, help="keep profile + validation.json per run here")
    parser.add_argument("--all-rows", action="store_true", help="print fit-level rows too")
    args = parser.parse_args()
    fit = [int(c) for c in args.fit.split(",")]
    groups = sets(list(args.runs))
    if args.runs and args.server_profile is not None:
        groups = [("named", list(args.runs), args.server_profile)]
    if not any(runs for _, runs, _ in groups):
        parser.error("no reference run in this checkout; name a run directory")
    with tempfile.TemporaryDirectory() as tmp:
        base = args.out or Path(tmp)
        for name, runs, profile in groups:
            print(f"######## {name} set" + ("" if profile else " (no server profile)") + "\n")
            for i, run_dir in enumerate(runs):
                if not (run_dir / "run.json").is_file():
                    parser.error(f"{run_dir} is not a run directory (no run.json)")
                where = base / name.replace(" ", "-") / f"{i}-{run_dir.name}"
                if profile is not None and not is_load_run(run_dir):
                    report = held_out_report(run_dir, where / "profile-c1", [1], 0, profile, args.draws)
                    print_report(run_dir, report, args.all_rows, "[profile + C = 1] ")
                report = held_out_report(run_dir, where / "fit", fit, args.fit_levels)
                print_report(
                    run_dir,
                    report,
                    args.all_rows,
                    f"[fit C = {args.fit}] " if not is_load_run(run_dir) else "",
                )


if __name__ == "__main__":
    main()
