"""How well the simulator predicts live runs it never saw, per reference set, against the targets.

``agbench bench fidelity`` (and ``bench/fidelity.py``) print it. A reference folder (the
checkout's ``calibration/reference``) holds two kinds of set, reported apart:

- **development**: ``run`` (and its repeat ``run-2``), ``model`` and ``load`` (scored after every
  change; the mechanisms were designed on it), with ``dev-profile/server_profile.toml`` where it
  was recorded, and
  every ``dev-*/`` folder with a sweep ``run/`` and its own ``server_profile.toml`` (other
  server settings, looked at while building: ``dev-t2``, two server threads; ``dev-pool8192``,
  an 8,192-cell pool), and ``run-2/``
  where it was recorded twice;
- **test**: every ``test-*/`` folder (recorded once from a frozen commit, never used to choose a
  mechanism), each with its own ``server_profile.toml``, its sweep ``run/`` and, where the
  level was recorded twice, ``run-2/``. Where the set also holds ``profile-full/``
  (``record_test_sets.sh --full-profiles``: the full grid, recorded later, in another session
  than most sets' sweeps), it is scored beside the set's own profile as a comparison
  (**full grid, recorded later + C = 1**); the set's own, recorded with its sweeps, calibrates.

For each agent sweep two protocols are printed:

1. **profile + C = 1** (the documented path): ``agbench calibrate RUN --server-profile
   SET/server_profile.toml --fit-concurrency 1``, then ``agbench validate --draws N``; held out:
   every level above 1. Scored against the full target list (worst row, outcome agreement,
   Brier, 90 % interval coverage included). Where the set has ``run-2/``, its C = 1 joins the
   calibration (``agbench calibrate RUN RUN-2 ...``: C = 1 only, so nothing held out is
   seen, and the server's drift between the two recordings widens the intervals), the same
   prediction is scored against ``run-2/`` too, and the two live recordings against each
   other: the **noise floor**, the error a perfect simulator would still show;
2. **fit C = 1, 2** (the comparison kept from before): ``agbench calibrate --fit-concurrency
   1,2`` then ``agbench validate``; held out: the levels above 2.

An open-loop load run (``agbench load``) is fitted on its two lowest rates and judged on the
others. The output closes with a summary: every agent sweep's report on one line, against the
same targets (:func:`summary_table`). Measured, never asserted: the figures depend on how quiet
the machine was while the reference was recorded (each reference's README says what the load
average was).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from agbench.boot_session import boot_started, same_boot_started
from agbench.calibration import calibrate, validate
from agbench.calibration.load_fit import calibrate_load, validate_load
from agbench.calibration.server_profile import recorded_calls, refit_server_profile
from agbench.errors import AgbenchError
from agbench.load import SERVER_PROFILE_FILE
from agbench.results.validation import ValidationReport, ValidationRow
from agbench.status import Status

#: The development runs, in the order they are reported, and where their profile sits.
DEVELOPMENT_RUNS = ("run", "model", "load")
DEVELOPMENT_PROFILE = Path("dev-profile") / SERVER_PROFILE_FILE
#: A test set's first recording and its repeat (the noise floor).
TEST_RUN, TEST_REPEAT = "run", "run-2"
#: A test set's full-grid server profile beside its recorded calls, recorded after the set (its
#: own, ``server_profile.toml``, recorded with its sweeps, is the quick grid).
FULL_PROFILE = Path("profile-full") / SERVER_PROFILE_FILE


#: Said of every development set: the held-out error its bands are widened to was measured there.
IN_SAMPLE_NOTE = (
    "(the held-out error agbench ships was measured on the development recordings: their held-out "
    "bands' coverage is in-sample; bench/held_out_coverage.py scores it leave-one-set-out)\n"
)


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


@dataclass(frozen=True)
class ReferenceSet:
    """One set of live runs scored together: its name, runs, server profile and repeats
    (``repeats[i]`` is the second recording of ``runs[i]``, or None); ``later_profile``: a
    profile recorded after the set (another grid, another session), scored beside it."""

    name: str
    runs: list[Path]
    server_profile: Path | None = None
    repeats: list[Path | None] = field(default_factory=list)
    later_profile: Path | None = None


@dataclass(frozen=True)
class FidelityOptions:
    """What ``agbench bench fidelity`` was asked: the comparison protocol's fit levels, the
    load runs' fitted levels, interval draws, where to keep the reports, which rows to print."""

    fit: list[int] = field(default_factory=lambda: [1, 2])
    fit_levels: int = 2
    draws: int = 10
    all_rows: bool = False


def is_run_dir(path: Path) -> bool:
    return (path / "run.json").is_file()


def is_load_run(run_dir: Path) -> bool:
    """Whether ``run_dir`` was made by ``agbench load`` (its run.json says so)."""
    meta = json.loads((run_dir / "run.json").read_text())
    return meta.get("agent_kind") in ("load", "sim-load")


def reference_sets(reference_dir: Path, which: str = "all") -> list[ReferenceSet]:
    """The development set and every test set under ``reference_dir`` (``which``: all,
    development or test); a set without a recorded run is left out."""
    out: list[ReferenceSet] = []
    if which in ("all", "development"):
        dev = [reference_dir / name for name in DEVELOPMENT_RUNS if is_run_dir(reference_dir / name)]
        profile = reference_dir / DEVELOPMENT_PROFILE
        if dev:
            # run/ was recorded twice (record.sh --repeat): its repeat is run-2/ beside it
            seconds = [reference_dir / TEST_REPEAT if d.name == TEST_RUN else None for d in dev]
            repeats = [r if r is not None and is_run_dir(r) else None for r in seconds]
            out.append(ReferenceSet("development", dev, profile if profile.is_file() else None, repeats))
        for folder in sorted(reference_dir.glob("dev-*")):
            if is_run_dir(folder / TEST_RUN):
                own = folder / SERVER_PROFILE_FILE
                again = folder / TEST_REPEAT
                out.append(
                    ReferenceSet(
                        f"development {folder.name}",
                        [folder / TEST_RUN],
                        own if own.is_file() else None,
                        [again if is_run_dir(again) else None],
                    )
                )
    if which in ("all", "test"):
        for folder in sorted(reference_dir.glob("test-*")):
            run, repeat = folder / TEST_RUN, folder / TEST_REPEAT
            if not is_run_dir(run):
                continue
            own, later = folder / SERVER_PROFILE_FILE, folder / FULL_PROFILE
            out.append(
                ReferenceSet(
                    f"test {folder.name}",
                    [run],
                    own if own.is_file() else None,
                    [repeat if is_run_dir(repeat) else None],
                    later if later.is_file() else None,
                )
            )
    return out


def held_out_report(
    run_dir: Path,
    out: Path,
    fit: list[int],
    fit_levels: int,
    server_profile: Path | None = None,
    draws: int = 0,
    score_against: Path | None = None,
    also: Sequence[Path] = (),
) -> ValidationReport:
    """Fit on the run's low levels (with ``server_profile``: its rates, and C = ``fit`` for the
    behaviour), predict all of it, score against ``score_against`` (default: the run itself).
    ``also``: other recordings of the same sweep whose fitted levels join the fit (their
    levels C = ``fit`` only; what the server's speed did between recordings then widens the
    intervals through ``run_drift``)."""
    out.mkdir(parents=True, exist_ok=True)
    profile = out / "profile.toml"
    if is_load_run(run_dir):
        calibrate_load(run_dir, profile, fit_levels)
        return ValidationReport.model_validate_json(validate_load(profile, run_dir, out).read_text())
    calibrate([run_dir, *also], profile, concurrency=fit, server_profile=server_profile)
    return score(profile, score_against or run_dir, out, draws)


def score(profile: Path, run_dir: Path, out: Path, draws: int) -> ValidationReport:
    """``agbench validate PROFILE RUN``'s report."""
    out.mkdir(parents=True, exist_ok=True)
    return ValidationReport.model_validate_json(validate(profile, [run_dir], out, draws=draws).read_text())


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


def run_fidelity(sets: Sequence[ReferenceSet], base: Path, options: FidelityOptions) -> str:
    """Every set's report, as one text (each protocol's validation.json kept under ``base``)."""
    if not any(s.runs for s in sets):
        raise AgbenchError("no reference run found: name run directories or --references DIR")
    parts: list[str] = []
    scored: list[Scored] = []
    for ref in sets:
        parts.append(
            f"######## {ref.name} set" + ("" if ref.server_profile else " (no server profile)") + "\n"
        )
        if ref.name.startswith("development") and ref.server_profile is not None:
            parts.append(IN_SAMPLE_NOTE)
        folder = base / ref.name.replace(" ", "-")
        recordings = [*ref.runs, *(r for r in ref.repeats if r is not None)]
        for profile in (ref.server_profile, ref.later_profile):
            if profile is not None and (note := session_note(profile, recordings)):
                parts.append(note)
        server_profile = _refitted(ref.server_profile, folder / SERVER_PROFILE_FILE, parts)
        later_profile = _refitted(ref.later_profile, folder / "later" / SERVER_PROFILE_FILE, parts)
        for i, run_dir in enumerate(ref.runs):
            if not is_run_dir(run_dir):
                raise AgbenchError(f"{run_dir} is not a run directory (no run.json)")
            where = folder / f"{i}-{run_dir.name}"
            repeat = ref.repeats[i] if i < len(ref.repeats) else None
            if server_profile is not None and not is_load_run(run_dir):
                parts.extend(
                    _profile_c1(run_dir, repeat, server_profile, where, options, "profile", scored, ref.name)
                )
            if later_profile is not None and not is_load_run(run_dir):
                label = "full grid, recorded later"
                parts.extend(
                    _profile_c1(
                        run_dir, repeat, later_profile, where / "later", options, label, scored, ref.name
                    )
                )
            fit_label = f"fit C = {','.join(map(str, options.fit))}"
            protocol = "" if is_load_run(run_dir) else f"[{fit_label}] "
            report = held_out_report(run_dir, where / "fit", options.fit, options.fit_levels)
            parts.append(report_text(run_dir, report, options.all_rows, protocol))
            if not is_load_run(run_dir):
                scored.append(Scored(ref.name, run_dir.name, fit_label, report))
    parts.append(summary_table(scored))
    return "\n".join(parts)


def _refitted(profile: Path | None, out: Path, parts: list[str]) -> Path | None:
    """``profile`` fitted again from its recorded calls (read with this version's fits, as a
    new profile would be), or as it is where its calls were not kept."""
    if profile is None or recorded_calls(profile) is None:
        return profile
    parts.append(f"server profile {profile}: fitted again from its recorded calls\n")
    return refit_server_profile(profile, out)


def _profile_c1(
    run_dir: Path,
    repeat: Path | None,
    profile: Path,
    where: Path,
    options: FidelityOptions,
    label: str,
    scored: list[Scored],
    set_name: str,
) -> list[str]:
    """The profile + C = 1 protocol's reports: on the run, on its repeat, and the two live
    recordings against each other (each report also joins ``scored``). Both recordings' C = 1
    (and only C = 1) calibrate: the noise floor between recordings is then measured where the
    protocol may look."""
    first = held_out_report(
        run_dir, where / "profile-c1", [1], 0, profile, options.draws, also=[repeat] if repeat else []
    )
    parts = [report_text(run_dir, first, options.all_rows, f"[{label} + C = 1] ")]
    scored.append(Scored(set_name, run_dir.name, f"{label} + C = 1", first))
    if repeat is not None:
        again = score(
            where / "profile-c1" / "profile.toml", repeat, where / "profile-c1-run-2", options.draws
        )
        parts.append(
            report_text(repeat, again, options.all_rows, f"[{label} + C = 1, scored on the repeat] ")
        )
        parts.append(noise_floor_table(first, again, SWEEP_TARGETS) + "\n")
        scored.append(Scored(set_name, repeat.name, f"{label} + C = 1", again))
    return parts


def _boot_of(candidates: Sequence[Path]) -> datetime | None:
    for path in candidates:
        if path.is_file():
            return boot_started(path.read_text())
    return None


def session_note(profile: Path, recordings: Sequence[Path]) -> str:
    """Which of the recordings the profile shares a boot with, from the ``*load_before.txt``
    files the reference scripts write beside each (a profile from another boot calibrates
    worse, whatever its grid: docs/design.md); "" where the files are not there."""
    folder = profile.parent
    own = _boot_of(
        [
            folder / "load_before.txt",
            folder.parent / f"{folder.name}.load_before.txt",
            folder / "profile.load_before.txt",
        ]
    )
    if own is None:
        return ""
    shares = []
    for run in recordings:
        same = same_boot_started(own, _boot_of([run.parent / f"{run.name}.load_before.txt"]))
        if same is not None:
            shares.append(f"{run.name} {'yes' if same else 'no'}")
    if not shares:
        return ""
    return (
        f"server profile {profile}: in the boot of "
        + ", ".join(shares)
        + f" (boot from {own:%Y-%m-%d %H:%M} UTC)\n"
    )
