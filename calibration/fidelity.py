"""How well the simulator predicts live runs it never saw, per reference set, against the targets.

``agbench bench fidelity`` (and ``bench/fidelity.py``) print it. A reference folder (the
checkout's ``calibration/reference``) holds two kinds of set, reported apart:

- **development**: ``run`` (and its repeat ``run-2``), ``model`` and ``load`` (scored after every
  change; the mechanisms were designed on it), with ``dev-profile/server_profile.toml`` where it
  was recorded, and
  every ``dev-*/`` folder with a sweep ``run/`` and its own ``server_profile.toml`` (other
  server settings, looked at while building: ``dev-t2``, two server threads; ``dev-pool8192``,
  an 8,192-cell pool; ``dev-slots``, per-slot pools and one server through every level;
  ``dev-default``, the runner's default server), and ``run-2/`` where it was recorded twice;
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
same targets (calibration/fidelity_scoring.py, where the targets and verdicts live). Measured, never asserted: the figures depend on how quiet
the machine was while the reference was recorded (each reference's README says what the load
average was).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from agbench.boot_session import boot_started, same_boot_started
from agbench.calibration import calibrate, validate
from agbench.calibration.fidelity_scoring import (
    SWEEP_TARGETS,
    Scored,
    noise_floor_table,
    report_text,
    summary_table,
)
from agbench.calibration.load_fit import calibrate_load, validate_load
from agbench.calibration.server_profile import recorded_calls, refit_server_profile
from agbench.errors import AgbenchError
from agbench.load import SERVER_PROFILE_FILE
from agbench.results.validation import ValidationReport
from agbench.run_meta import is_load_run

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


#: ``reference_sets``' groups; any other ``which`` names one set's folder (``test-default-t1``).
SET_GROUPS = ("all", "development", "test")


def reference_sets(reference_dir: Path, which: str = "all") -> list[ReferenceSet]:
    """The development set and every test set under ``reference_dir`` (``which``: all,
    development or test), or the one set whose folder ``which`` names (a ``dev-*`` or
    ``test-*`` folder: scoring a set just recorded, alone); a set without a recorded run is
    left out, and a name no set has is an error."""
    if which not in SET_GROUPS:
        # every set but the development one (run/, model/, load/) is a folder of its own
        named = {s.runs[0].parent.name: s for s in reference_sets(reference_dir) if s.name != "development"}
        if which in named:
            return [named[which]]
        names = sorted(named)
        raise AgbenchError(
            f"no reference set {which!r} under {reference_dir} (give all, development, test or one of: "
            f"{', '.join(names) or 'none'})"
        )
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
