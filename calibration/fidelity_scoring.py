"""The fidelity targets, and how one validation report is judged and printed against them.

Why apart from calibration/fidelity.py: that module finds the reference sets and runs each
protocol (calibrate, validate, the noise floor between recordings); this one only reads
finished reports: the targets and their bounds, a verdict per target, the per-report tables,
the noise floor's table and the closing summary. ``bench/held_out_coverage.py`` scores
leave-one-set-out coverage on the same timing metrics without running anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agbench.results.validation import ValidationReport, ValidationRow
from agbench.status import Status


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


def _rows(report: ValidationReport, metric: str) -> list[ValidationRow]:
    found = report.metrics.get(metric)
    return list(found.rows) if found is not None else []


def _row_key(row: ValidationRow) -> str:
    if row.level is not None:
        return f"{row.level:>16s}"
    return f"{row.architecture or '?':>4s} C={row.concurrency or 0:<3d}"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.4g}"


def rows_table(report: ValidationReport, targets: Sequence[Target], held_out_only: bool) -> str:
    """One line per (target metric, configuration or level): live, simulated, signed error;
    with draws, ``sim`` is their median and ``nominal`` the one run without them."""
    drawn = report.intervals is not None and report.intervals.point is not None
    extra = f" {'nominal':>10s}" if drawn else ""
    lines = [f"{'metric':26s} {'where':>16s} {'live':>10s} {'sim':>10s} {'error':>9s}{extra}"]
    for target in targets:
        for row in _rows(report, target.metric):
            if held_out_only and not row.held_out:
                continue
            shown = "-" if row.error_pct is None else f"{row.error_pct:+.1f}%"
            nominal = f" {_num(row.sim_nominal):>10s}" if drawn else ""
            lines.append(
                f"{target.metric:26s} {_row_key(row):>16s} {_num(row.live):>10s} {_num(row.sim):>10s} "
                f"{shown:>9s}{nominal}"
            )
    if drawn:
        lines.append(f"(sim: {report.intervals.point if report.intervals else ''})")
    return "\n".join(lines)


@dataclass(frozen=True)
class Verdict:
    """One target's held-out figure: MAPE (or the worst absolute difference), worst row, met."""

    figure: float | None
    mape: float | None
    worst: float | None
    met: bool
    rows: int
    missing: int


def judge(report: ValidationReport, target: Target) -> Verdict:
    """The held-out figure of one target and whether it was met (a row missing on either side
    is a miss: the target is then not met)."""
    rows = [r for r in _rows(report, target.metric) if r.held_out]
    missing = sum(bool(r.missing) for r in rows)
    if target.kind == "abs":
        diffs = [float(r.abs_diff) for r in rows if r.abs_diff is not None]
        worst = max(diffs, default=None)
        met = worst is not None and worst <= target.bound and not missing
        return Verdict(worst, None, worst, met, len(rows), missing)
    errs = [abs(float(r.error_pct)) for r in rows if r.error_pct is not None]
    mape = sum(errs) / len(errs) if errs else None
    worst = max(errs, default=None)
    figure = worst if target.kind == "each_pct" else mape
    met = figure is not None and figure <= target.bound and not missing
    return Verdict(figure, mape, worst, met, len(rows), missing)


def targets_table(report: ValidationReport, targets: Sequence[Target]) -> str:
    lines = [f"{'target':22s} {'bound':>14s} {'held-out':>14s} {'worst':>9s}  met"]
    for target in targets:
        verdict = judge(report, target)
        if not verdict.rows:
            # mean completion is over the tasks every architecture solved: none, no figure
            lines.append(f"{target.label:22s} {'-':>14s} {'no rows':>14s}  (nothing to compare)")
            continue
        if verdict.figure is None or verdict.worst is None:
            lines.append(f"{target.label:22s} {'-':>14s} {'all missing':>14s}  NO")
            continue
        if target.kind == "abs":
            bound = "exact" if target.bound == 0 else f"±{target.bound:g} per cfg"
            figure, worst = f"{verdict.figure:.0f} off", f"{verdict.worst:.0f}"
        else:
            bound = f"{target.bound:g}% " + ("each" if target.kind == "each_pct" else "MAPE")
            figure, worst = f"{verdict.mape or 0.0:.1f}% MAPE", f"{verdict.worst:.1f}%"
        note = f" ({verdict.missing} row(s) missing on one side)" if verdict.missing else ""
        lines.append(
            f"{target.label:22s} {bound:>14s} {figure:>14s} {worst:>9s}  {'yes' if verdict.met else 'NO'}{note}"
        )
    return "\n".join(lines)


def _share(value: object) -> float | None:
    """A ShareOverPairs' held-out share, or the bare float older reports wrote."""
    if value is None or isinstance(value, int | float):
        return None if value is None else float(value)
    held_out = getattr(value, "held_out", None)
    return None if held_out is None else float(held_out)


def coverage(report: ValidationReport) -> tuple[int, int]:
    """(inside, rows): held-out timing rows with a 90 % band, and how many of them hold the
    live value."""
    covered = inside = 0
    for metric in WORST_ROW_METRICS:
        for row in _rows(report, metric):
            if row.held_out and row.sim_p05 is not None and row.sim_p95 is not None and row.live is not None:
                covered += 1
                inside += row.sim_p05 <= row.live <= row.sim_p95
    return inside, covered


def extra_targets_table(report: ValidationReport) -> str:
    """The targets beyond the per-metric ones: worst row, outcomes, Brier, interval coverage."""
    lines: list[str] = []
    if not any(r.held_out for m in report.metrics.values() for r in m.rows):
        return ""
    worst = []
    for metric in WORST_ROW_METRICS:
        found = report.metrics.get(metric)
        row = found.worst_row if found is not None else None
        if row is not None:
            worst.append((metric, abs(float(row.error_pct)) if row.error_pct is not None else float("inf")))
    if worst:
        metric, figure = max(worst, key=lambda x: x[1])
        lines.append(
            f"{'worst timing row':22s} {f'{WORST_ROW_PCT:g}% each':>14s} {f'{figure:.1f}%':>14s} "
            f"{metric[:9]:>9s}  {'yes' if figure <= WORST_ROW_PCT else 'NO'}"
        )
    agreement, brier = _share(report.outcome_agreement), _share(report.brier)
    if agreement is not None:
        met = agreement >= OUTCOME_AGREEMENT_MIN or (brier is not None and brier <= BRIER_MAX)
        lines.append(
            f"{'outcome agreement':22s} {f'>= {OUTCOME_AGREEMENT_MIN:.0%}':>14s} {f'{agreement:.1%}':>14s} "
            f"{'':>9s}  {'yes' if met else 'NO'}"
        )
    if brier is not None:
        lines.append(
            f"{'Brier (failure prob.)':22s} {f'<= {BRIER_MAX:g}':>14s} {f'{brier:.3f}':>14s} "
            f"{'':>9s}  {'yes' if brier <= BRIER_MAX else 'NO'}"
        )
    inside, covered = coverage(report)
    if covered:
        share = inside / covered
        lines.append(
            f"{'90% interval coverage':22s} {f'>= {COVERAGE_MIN:.0%}':>14s} {f'{share:.0%} of {covered}':>14s} "
            f"{'':>9s}  {'yes' if share >= COVERAGE_MIN else 'NO'}"
        )
    kv = report.metrics.get("kv_peak_cells")
    if kv is not None and kv.saturated_rows:
        lines.append(
            f"(peak KV: {kv.saturated_rows} held-out row(s) at the pool cap on both sides, scored as misses)"
        )
    lines.extend(f"(outside the server profile: {text})" for text in report.range_warnings[:6])
    return "\n".join(lines)


def noise_floor_table(first: ValidationReport, second: ValidationReport, targets: Sequence[Target]) -> str:
    """The two live recordings of the same levels against each other, per timing target: the
    MAPE and worst row a simulator that predicted one recording exactly would show on the
    other (rows of the first recording are the reference), and ``least on both``: the least
    mean of the two recordings' MAPEs any one prediction can score.

    Why the last: the protocol scores one prediction against both recordings, and a row whose
    recordings are ``a`` and ``b`` costs at least ``|a - b| / max(a, b)`` summed over the two
    (``|s - a| / a + |s - b| / b`` is least at the smaller of them). Half its mean over the rows
    bounds the mean of the two MAPEs from below, and so the larger of them: a target below it
    is out of reach on this set for any deterministic simulator, however right its model."""
    lines = [
        f"{'noise floor (run vs run-2)':26s} {'rows':>5s} {'MAPE':>8s} {'worst':>8s} {'least on both':>14s}"
    ]
    for target in targets:
        if target.kind == "abs":
            continue
        other = {(r.architecture, r.concurrency): r.live for r in _rows(second, target.metric) if r.held_out}
        errs, least = [], []
        for row in _rows(first, target.metric):
            again = other.get((row.architecture, row.concurrency))
            if row.held_out and row.live and again is not None:
                errs.append(abs(again - row.live) / abs(row.live) * 100.0)
                least.append(abs(again - row.live) / max(abs(again), abs(row.live)) * 100.0)
        if errs:
            lines.append(
                f"{target.label:26s} {len(errs):>5d} {sum(errs) / len(errs):>7.1f}% {max(errs):>7.1f}% "
                f"{sum(least) / len(least) / 2:>13.1f}%"
            )
    return "\n".join(lines)


def report_text(run_dir: Path, report: ValidationReport, all_rows: bool, title: str = "") -> str:
    """One run's rows and verdicts, as ``agbench bench fidelity`` prints them."""
    load = report.kind == "load"
    targets = LOAD_TARGETS if load else SWEEP_TARGETS
    fitted = ", ".join(report.fitted_levels or []) if load else f"C = {report.fit_concurrency}"
    if report.server_profile:
        fitted += f" + server profile {report.server_profile}"
    parts = [
        f"== {title}{run_dir} ({'open-loop load' if load else 'agent sweep'}; fitted on {fitted})\n",
        rows_table(report, targets, held_out_only=not all_rows),
        "",
        targets_table(report, targets),
    ]
    if not load and (extra := extra_targets_table(report)):
        parts.append(extra)
    return "\n".join(parts) + "\n"


@dataclass(frozen=True)
class Scored:
    """One agent sweep's report as the closing summary lists it."""

    set_name: str
    recording: str
    protocol: str
    report: ValidationReport


def _cell(verdict: Verdict, kind: str) -> str:
    """A target's figure for the summary, ``*`` where it is missed."""
    if not verdict.rows:
        return "-"
    if verdict.figure is None:
        return "missing*"
    mark = "" if verdict.met else "*"
    if kind == "abs":
        return f"{verdict.figure:.0f} off{mark}"
    return f"{verdict.mape or 0.0:.1f} ({verdict.worst or 0.0:.1f}){mark}"


def summary_table(scored: Sequence[Scored]) -> str:
    """Every agent sweep's held-out figures on one line each, against the same targets as its
    own table above: MAPE % (worst row %) per timing target, peak KV MAPE, the count targets'
    worst configuration, outcome agreement, Brier and coverage; ``*`` marks a missed target
    (a timing target is missed on its MAPE or, beyond 15 %, on its worst row)."""
    if not scored:
        return ""
    header = (
        f"{'set':30s} {'recording':9s} {'protocol':34s} {'completion':>13s} {'suite wall':>13s} "
        f"{'TTFT p50':>14s} {'peak KV':>8s} {'ctx limit':>9s} {'success':>8s} {'agree':>7s} "
        f"{'Brier':>6s} {'coverage':>11s}"
    )
    lines = [
        "######## summary: every sweep, held out (MAPE % (worst row %); * missed)\n",
        header,
    ]
    for entry in scored:
        report = entry.report
        cells = []
        for target in SWEEP_TARGETS:
            verdict = judge(report, target)
            cell = _cell(verdict, target.kind)
            if target.metric == "kv_peak_cells" and verdict.mape is not None:
                cell = f"{verdict.mape:.1f}" + ("" if verdict.met else "*")
            elif (
                target.metric in WORST_ROW_METRICS
                and verdict.worst is not None
                and verdict.worst > WORST_ROW_PCT
                and not cell.endswith("*")
            ):
                cell += "*"
            cells.append(cell)
        agreement, brier = _share(report.outcome_agreement), _share(report.brier)
        agree = (
            "-"
            if agreement is None
            else f"{agreement:.1%}" + ("" if agreement >= OUTCOME_AGREEMENT_MIN else "*")
        )
        brier_cell = "-" if brier is None else f"{brier:.3f}" + ("" if brier <= BRIER_MAX else "*")
        inside, covered = coverage(report)
        cover = (
            "-"
            if not covered
            else f"{inside / covered:.0%} of {covered}" + ("" if inside / covered >= COVERAGE_MIN else "*")
        )
        lines.append(
            f"{entry.set_name:30s} {entry.recording:9s} {entry.protocol:34s} {cells[0]:>13s} {cells[1]:>13s} "
            f"{cells[2]:>14s} {cells[3]:>8s} {cells[4]:>9s} {cells[5]:>8s} {agree:>7s} {brier_cell:>6s} "
            f"{cover:>11s}"
        )
    return "\n".join(lines) + "\n"


__all__ = [
    "BRIER_MAX",
    "COVERAGE_MIN",
    "LOAD_TARGETS",
    "OUTCOME_AGREEMENT_MIN",
    "SWEEP_TARGETS",
    "WORST_ROW_METRICS",
    "WORST_ROW_PCT",
    "Scored",
    "Target",
    "Verdict",
    "coverage",
    "extra_targets_table",
    "judge",
    "noise_floor_table",
    "report_text",
    "rows_table",
    "summary_table",
    "targets_table",
]
