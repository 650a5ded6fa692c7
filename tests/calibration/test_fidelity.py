"""``agbench bench fidelity`` (calibration/fidelity.py, fidelity_scoring.py): sets, protocols,
verdicts, noise floor.

Only the load reference (``calibration/reference/load``) is simulated here: its open-loop
simulation takes seconds, where the sweep references' take minutes. The figures are measured,
not asserted (they depend on how quiet the machine was while the reference was recorded); what
is asserted is that the fit used the two lowest rates only, that each target is judged on
held-out rows, how the sets are found, and the noise floor's arithmetic.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from agbench.calibration.fidelity import held_out_report, is_load_run, reference_sets, session_note
from agbench.calibration.fidelity_scoring import (
    LOAD_TARGETS,
    SWEEP_TARGETS,
    Scored,
    judge,
    noise_floor_table,
    summary_table,
)
from agbench.cli import main
from agbench.errors import AgbenchError
from agbench.results.validation import MetricValidation, ValidationReport, ValidationRow

ROOT = Path(__file__).resolve().parents[2]
LOAD_REFERENCE = ROOT / "calibration" / "reference" / "load"
needs_load_reference = pytest.mark.skipif(
    not (LOAD_REFERENCE / "run.json").is_file(), reason="the load reference is not in this checkout"
)


@needs_load_reference
def test_the_load_reference_is_fitted_low_and_judged_high(tmp_path: Path) -> None:
    assert is_load_run(LOAD_REFERENCE)
    report = held_out_report(LOAD_REFERENCE, tmp_path, [1, 2], 2)
    assert report.fitted_levels == ["rate-0.2", "rate-0.5"]
    for target in LOAD_TARGETS:
        rows = report.metrics[target.metric].rows
        assert [r.held_out for r in rows] == [False, False, True, True]
        verdict = judge(report, target)
        assert verdict.rows == 2
        assert verdict.figure == verdict.worst  # "each within": the worst level counts
        assert verdict.worst is not None
        assert verdict.met == (verdict.worst <= target.bound)


def _run(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps({"agent_kind": "replay"}))
    return folder


def test_sets_are_found_development_and_test_apart(tmp_path: Path) -> None:
    _run(tmp_path / "run")
    _run(tmp_path / "model")
    (tmp_path / "dev-profile").mkdir()
    (tmp_path / "dev-profile" / "server_profile.toml").write_text("")
    _run(tmp_path / "test-a" / "run")
    _run(tmp_path / "test-a" / "run-2")
    (tmp_path / "test-a" / "server_profile.toml").write_text("")
    _run(tmp_path / "test-b" / "run")
    (tmp_path / "test-c").mkdir()  # nothing recorded: left out
    sets = reference_sets(tmp_path)
    assert [s.name for s in sets] == ["development", "test test-a", "test test-b"]
    dev, a, b = sets
    assert dev.runs == [tmp_path / "run", tmp_path / "model"]
    assert dev.server_profile == tmp_path / "dev-profile" / "server_profile.toml"
    assert a.repeats == [tmp_path / "test-a" / "run-2"]
    assert b.server_profile is None
    assert b.repeats == [None]
    assert a.later_profile is None  # its own profile calibrates, with nothing beside it
    assert [s.name for s in reference_sets(tmp_path, "test")] == ["test test-a", "test test-b"]


def test_one_set_is_chosen_by_its_folder_and_an_unknown_name_says_which_exist(tmp_path: Path) -> None:
    _run(tmp_path / "run")
    _run(tmp_path / "dev-slots" / "run")
    _run(tmp_path / "test-a" / "run")
    _run(tmp_path / "test-b" / "run")
    assert [s.name for s in reference_sets(tmp_path, "test-b")] == ["test test-b"]
    assert [s.name for s in reference_sets(tmp_path, "dev-slots")] == ["development dev-slots"]
    with pytest.raises(AgbenchError, match=r"no reference set 'test-z'.*dev-slots, test-a, test-b"):
        reference_sets(tmp_path, "test-z")
    with pytest.raises(AgbenchError, match="no reference set"):
        reference_sets(tmp_path, tmp_path.name)  # the development runs' folder is not a set's


def test_a_full_grid_recorded_later_is_the_comparison_and_the_sets_own_profile_calibrates(
    tmp_path: Path,
) -> None:
    _run(tmp_path / "test-a" / "run")
    (tmp_path / "test-a" / "server_profile.toml").write_text("")
    (tmp_path / "test-a" / "profile-full").mkdir()
    (tmp_path / "test-a" / "profile-full" / "server_profile.toml").write_text("")
    _run(tmp_path / "test-b" / "run")  # a later profile alone
    (tmp_path / "test-b" / "profile-full").mkdir()
    (tmp_path / "test-b" / "profile-full" / "server_profile.toml").write_text("")
    a, b = reference_sets(tmp_path, "test")
    assert a.server_profile == tmp_path / "test-a" / "server_profile.toml"
    assert a.later_profile == tmp_path / "test-a" / "profile-full" / "server_profile.toml"
    assert b.server_profile is None  # nothing recorded with the set: the later one is only compared
    assert b.later_profile == tmp_path / "test-b" / "profile-full" / "server_profile.toml"


def _report(lives: dict[tuple[str, int], float]) -> ValidationReport:
    rows = [
        ValidationRow(architecture=arch, concurrency=c, held_out=c > 1, live=live, sim=live)
        for (arch, c), live in lives.items()
    ]
    return ValidationReport(metrics={"suite_wall_s": MetricValidation(kind="pct", rows=rows)})


def test_the_noise_floor_compares_the_two_recordings_on_held_out_rows() -> None:
    first = _report({("LO", 1): 10.0, ("LO", 2): 100.0, ("CO", 2): 50.0})
    second = _report({("LO", 1): 99.0, ("LO", 2): 110.0, ("CO", 2): 45.0})
    table = noise_floor_table(first, second, SWEEP_TARGETS)
    (line,) = [row for row in table.splitlines() if row.startswith("suite wall")]
    # held out: LO C=2 (+10 %) and CO C=2 (-10 %); the fitted C=1 row is not counted
    assert line.split()[-4:-1] == ["2", "10.0%", "10.0%"]
    # least on both: LO C=2 costs 10/110, CO C=2 5/50 summed over the two recordings;
    # half their mean bounds the mean of the two MAPEs
    assert float(line.split()[-1].rstrip("%")) == pytest.approx((10 / 110 + 5 / 50) / 4 * 100, abs=0.05)


def test_no_single_prediction_beats_the_least_on_both() -> None:
    first = _report({("LO", 2): 100.0, ("CO", 2): 50.0, ("HLL", 4): 30.0})
    second = _report({("LO", 2): 130.0, ("CO", 2): 40.0, ("HLL", 4): 33.0})
    (line,) = [
        r for r in noise_floor_table(first, second, SWEEP_TARGETS).splitlines() if r.startswith("suite")
    ]
    least = float(line.split()[-1].rstrip("%"))
    a, b = [100.0, 50.0, 30.0], [130.0, 40.0, 33.0]
    rng = np.random.default_rng(0)
    for _ in range(2000):  # any prediction, each row anywhere near the two recordings
        s = [rng.uniform(0.5 * min(x, y), 1.5 * max(x, y)) for x, y in zip(a, b, strict=True)]
        mape_a = np.mean([abs(p - x) / x for p, x in zip(s, a, strict=True)]) * 100
        mape_b = np.mean([abs(p - y) / y for p, y in zip(s, b, strict=True)]) * 100
        assert (mape_a + mape_b) / 2 >= least - 0.05
    # and the bound is reached: each row predicted at its smaller recording
    s = [min(x, y) for x, y in zip(a, b, strict=True)]
    mape_a = np.mean([abs(p - x) / x for p, x in zip(s, a, strict=True)]) * 100
    mape_b = np.mean([abs(p - y) / y for p, y in zip(s, b, strict=True)]) * 100
    assert (mape_a + mape_b) / 2 == pytest.approx(least, abs=0.05)


def test_a_row_missing_on_one_side_is_a_miss() -> None:
    rows = [
        ValidationRow(architecture="LO", concurrency=2, held_out=True, live=1.0, sim=1.0, error_pct=0.0),
        ValidationRow(architecture="LO", concurrency=4, held_out=True, live=1.0, missing=True),
    ]
    report = ValidationReport(metrics={"suite_wall_s": MetricValidation(kind="pct", rows=rows)})
    verdict = judge(report, SWEEP_TARGETS[1])
    assert verdict.mape == 0.0
    assert verdict.missing == 1
    assert not verdict.met


def test_the_summary_gives_each_sweep_a_line_and_marks_what_it_misses() -> None:
    def row(conc: int, live: float, sim: float, p05: float, p95: float) -> ValidationRow:
        return ValidationRow(
            architecture="LO", concurrency=conc, held_out=conc > 1, live=live, sim=sim,
            error_pct=(sim - live) / live * 100.0, sim_p05=p05, sim_p95=p95,
        )  # fmt: skip

    near = ValidationReport(  # within every bound: 2 % and 4 %, both inside their bands
        metrics={
            "suite_wall_s": MetricValidation(
                kind="pct", rows=[row(2, 100, 102, 95, 105), row(4, 50, 52, 45, 55)]
            )
        }
    )
    far = ValidationReport(  # 3 % MAPE but a 20 % row, and one band of two misses its live value
        metrics={
            "suite_wall_s": MetricValidation(
                kind="pct", rows=[row(2, 100, 120, 110, 130), row(4, 50, 50, 45, 55)]
            )
        }
    )
    table = summary_table(
        [
            Scored("test pool", "run", "profile + C = 1", near),
            Scored("test pool", "run-2", "profile + C = 1", far),
        ]
    )
    lines = {line.split()[2]: line for line in table.splitlines() if line.startswith("test pool")}
    # the suite-wall cell: MAPE (worst row), * where missed; the coverage cell likewise
    assert "3.0 (4.0) " in lines["run"]
    assert "10.0 (20.0)*" in lines["run-2"]
    assert lines["run"].rstrip().endswith("100% of 2")
    assert lines["run-2"].rstrip().endswith("50% of 2*")
    assert summary_table([]) == ""


def test_a_directory_that_is_not_a_run_is_a_one_line_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["bench", "fidelity", str(tmp_path)])
    assert result.exit_code == 2
    assert "not a run directory" in result.output
    result = CliRunner().invoke(main, ["bench", "fidelity", "--references", str(tmp_path / "none")])
    assert result.exit_code == 2
    assert "no reference folder" in result.output


@pytest.mark.slow
def test_the_script_is_the_command(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "fidelity.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "not a run directory" in result.stderr


def test_the_session_note_says_which_recordings_share_the_profiles_boot(tmp_path: Path) -> None:
    def load(path: Path, at: str, up: str) -> None:
        path.write_text(f"{at}\n 00:00:00 up {up},  0 user,  load average: 1.0\n")

    (tmp_path / "profile-full").mkdir()
    profile = tmp_path / "profile-full" / "server_profile.toml"
    load(tmp_path / "profile-full.load_before.txt", "2026-12-06T08:00:00Z", " 7:00")  # boot 01:00
    load(tmp_path / "run.load_before.txt", "2026-12-06T02:00:00Z", " 1:00")  # the same boot
    load(tmp_path / "run-2.load_before.txt", "2026-12-02T12:00:00Z", "30 min")  # another
    note = session_note(profile, [tmp_path / "run", tmp_path / "run-2"])
    assert "in the boot of run yes, run-2 no" in note
    assert session_note(tmp_path / "elsewhere" / "server_profile.toml", [tmp_path / "run"]) == ""
