"""Paper predictions with ranges: over the devices' stated assumptions, and over C = 1 fits
(the shipped fit and its refits on other task draws) only where the published C = 1 figures
accept them (said plainly when none is)."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pandas as pd
import pytest
import tomli_w
from click.testing import CliRunner

from agbench.calibration.paper.fit import outside_bounds
from agbench.calibration.paper.predict import cli as predict_cli
from agbench.calibration.paper.problem import key_of
from agbench.calibration.paper.ranges import PaperRanges, paper_ranges, ranged_text, with_ranges
from agbench.calibration.paper.refits import read_refit, shipped_refits
from agbench.calibration.paper.targets import DEVICES, TARGETS
from agbench.calibration.paper.write import SHIPPED_DIR, WORKLOAD_FILE, overlay_file
from agbench.errors import AgbenchError
from agbench.sim import load_scenario


def test_assumption_ranges_cover_the_matrix() -> None:
    ranges = paper_ranges(2, (1, 4), seed=0, refits=0)
    frame = ranges.assumed
    assert len(frame) == 2 * 4 * 2  # devices x architectures x levels
    lo = frame[(frame["device"] == "rtx5090") & (frame["arch"] == "LO") & (frame["C"] == 1)].iloc[0]
    assert lo["suite_h_p05"] <= lo["suite_h_p95"]
    assert ranges.refits_judged == []
    assert ranges.fit.empty
    assert ranges.fit_note() == "no range over C = 1 fits was asked for"
    assert "not a calibrated interval" in ranges.method


def _copy_fit(to: Path) -> Path:
    """The shipped fit's three files in a folder of their own."""
    to.mkdir(parents=True)
    for name in (WORKLOAD_FILE, *(overlay_file(s) for s in DEVICES)):
        shutil.copy(SHIPPED_DIR / name, to / name)
    return to


def _record_seed(overlay: Path, seed: int) -> None:
    data = tomllib.loads(overlay.read_text())
    data["fit"]["paper_c1"]["seed"] = seed
    overlay.write_text(tomli_w.dumps(data))


def test_the_shipped_fit_reads_as_seed_zero_and_a_refit_carries_its_seed(tmp_path: Path) -> None:
    shipped = read_refit(SHIPPED_DIR)
    assert shipped.seed == 0
    assert (
        shipped.params.archs["LO"].turns_median
        == load_scenario("paper-rtx5090").synthetic.archs["LO"].turns_median
    )
    assert shipped.overlays["paper-max395"]["behaviour"]["exposure_p"]["HLL"] == pytest.approx(0.13, abs=0.02)
    folder = _copy_fit(tmp_path / "seed-7")
    for scenario in DEVICES:  # as `agbench paper fit --seed 7` writes them
        _record_seed(folder / overlay_file(scenario), 7)
    assert [r.seed for r in shipped_refits(tmp_path)] == [7]
    _record_seed(folder / overlay_file("paper-max395"), 8)
    with pytest.raises(AgbenchError, match="different seeds"):
        read_refit(folder)
    (folder / WORKLOAD_FILE).unlink()
    with pytest.raises(AgbenchError, match=r"no paper-workload\.toml"):
        read_refit(folder)
    assert shipped_refits(tmp_path / "absent") == []


def test_a_refit_whose_c1_simulation_misses_the_paper_is_judged_and_left_out(tmp_path: Path) -> None:
    """Refits are judged again where they are used: one that no longer reproduces the
    published C = 1 figures (here the shipped fit with LO's turns tripled) gives no range and
    the note says so."""
    folder = _copy_fit(tmp_path / "refits" / "seed-0")
    workload = folder / WORKLOAD_FILE
    data = tomllib.loads(workload.read_text())
    data["archs"]["LO"]["turns_median"] *= 3
    workload.write_text(tomli_w.dumps(data))
    ranges = paper_ranges(0, (1,), refits=None, refit_dir=tmp_path / "refits")
    assert ranges.refits_judged == [0]
    assert ranges.refits_accepted == []
    assert ranges.fit.empty
    assert ranges.fit_note().startswith("no range over C = 1 fits: none of the 1 refits")


def test_outside_bounds_names_the_bounded_figures_a_fit_misses() -> None:
    exact = {key_of(t): t.value for t in TARGETS}
    assert outside_bounds(exact) == []
    lo = next(t for t in TARGETS if t.metric == "success" and t.arch == "LO")
    assert outside_bounds(exact | {key_of(lo): lo.value + 3}) == [lo.label]
    soft = [t for t in TARGETS if t.bound == "soft"]
    assert soft
    assert not set(outside_bounds({})) & {t.label for t in soft}


@pytest.mark.slow  # the whole predicted matrix through the command line: about a minute
def test_other_task_orders_leave_one_agent_alone_and_the_command_prints_each_range() -> None:
    """An order draw changes only which tasks start together: at C = 1 every task runs alone,
    so its figures stay the shipped fit's; above, the order moves them (the range is not a
    point). The command prints each range asked for, the one over C = 1 fits with its note."""
    ranges = paper_ranges(0, (1, 4), seed=0, refits=0, orders=3)
    assert ranges.order_draws == 3
    assert ranges.assumed.empty
    frame = ranges.order
    assert len(frame) == 2 * 4 * 2
    alone = frame[frame["C"] == 1]
    assert (alone["order_success_p05"] == alone["order_success_p95"]).all()
    together = frame[frame["C"] == 4]
    assert (together["order_suite_h_p95"] - together["order_suite_h_p05"] > 0).any()
    result = CliRunner().invoke(predict_cli, ["--draws", "0", "--refits", "1", "--orders", "2"])
    assert result.exit_code == 0, result.output
    assert "90 % ranges over 2 other task orders" in result.output
    assert "ranges over 2 C = 1 fits, the lowest and highest: the shipped one and the refits" in result.output
    assert "range over C = 1 fits: the shipped fit and 1 of 1 refits" in result.output


def test_ranged_text_marks_a_point_outside_its_range() -> None:
    frame = pd.DataFrame([{"device": "d", "arch": "LO", "C": 1, "suite_h": 2.0}])
    bands = pd.DataFrame([{"device": "d", "arch": "LO", "C": 1, "suite_h_p05": 1.0, "suite_h_p95": 1.5}])
    joined = with_ranges(frame, PaperRanges(bands, pd.DataFrame()))
    assert ranged_text(joined, "suite_h").iloc[0] == "2.00 [1.00, 1.50]*"
    assert PaperRanges(pd.DataFrame(), pd.DataFrame()).fit_note() == "no range over C = 1 fits was asked for"


@pytest.mark.slow  # one C = 1 check and one matrix per shipped refit: about ten seconds each
def test_every_shipped_refit_reproduces_the_published_c1_figures() -> None:
    """The refits ship only when they reproduce every bounded C = 1 figure; a simulator change
    that breaks one fails here (re-run calibration/paper/record_refits.sh), as the shipped fit's
    own check does. What each fit gives at C = 1 stays within the published success bounds."""
    refits = shipped_refits()
    assert refits
    ranges = paper_ranges(0, (1, 4))
    assert ranges.refits_accepted == [r.seed for r in refits], ranges.fit_note()
    assert ranges.fit_note().startswith(f"range over C = 1 fits: the shipped fit and {len(refits)} of")
    frame = ranges.fit
    for t in (t for t in TARGETS if t.metric == "success"):
        row = frame[(frame["device"] == DEVICES[t.device]) & (frame["arch"] == t.arch) & (frame["C"] == 1)]
        assert t.value - t.tolerance <= row["fit_success_p05"].iloc[0], t.label
        assert row["fit_success_p95"].iloc[0] <= t.value + t.tolerance, t.label
    together = frame[frame["C"] == 4]
    assert (together["fit_suite_h_p95"] > together["fit_suite_h_p05"]).any()  # the fits differ


@pytest.mark.slow  # two refits at C = 1, in this process and on two workers: about 20 s
def test_refits_simulated_on_workers_give_what_one_process_gives() -> None:
    """Each refit's simulation is seeded, so where it runs changes nothing: the same refits
    judged, the same accepted, the same fit range."""
    alone = paper_ranges(0, (1,), refits=2, workers=1)
    spread = paper_ranges(0, (1,), refits=2, workers=2)
    assert len(alone.refits_judged) == 2
    assert spread.refits_accepted == alone.refits_accepted
    pd.testing.assert_frame_equal(spread.fit, alone.fit)
