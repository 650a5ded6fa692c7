"""Paper predictions with ranges: over the devices' stated assumptions, and over C = 1 fits
only where the published C = 1 figures accept them (said plainly when none is)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from agbench.calibration.paper.predict import cli as predict_cli
from agbench.calibration.paper.ranges import PaperRanges, paper_ranges, perturbed, ranged_text, with_ranges
from agbench.sim import load_scenario


def test_assumption_ranges_cover_the_matrix_and_no_fit_is_claimed_without_acceptance() -> None:
    ranges = paper_ranges(2, (1, 4), seed=0, fit_tries=1)
    frame = ranges.assumed
    assert len(frame) == 2 * 4 * 2  # devices x architectures x levels
    lo = frame[(frame["device"] == "rtx5090") & (frame["arch"] == "LO") & (frame["C"] == 1)].iloc[0]
    assert lo["suite_h_p05"] <= lo["suite_h_p95"]
    assert ranges.fit_tries == 1
    if ranges.fit_accepted == 0:
        assert ranges.fit.empty
        assert ranges.fit_note().startswith("no range over C = 1 fits")
    assert "not a calibrated interval" in ranges.method


@pytest.mark.slow  # the whole predicted matrix through the command line: about half a minute
def test_other_task_orders_leave_one_agent_alone_and_move_more() -> None:
    """An order draw changes only which tasks start together: at C = 1 every task runs alone,
    so its figures stay the shipped fit's; above, the order moves them (the range is not a
    point)."""
    ranges = paper_ranges(0, (1, 4), seed=0, orders=3)
    assert ranges.order_draws == 3
    assert ranges.assumed.empty
    frame = ranges.order
    assert len(frame) == 2 * 4 * 2
    alone = frame[frame["C"] == 1]
    assert (alone["order_success_p05"] == alone["order_success_p95"]).all()
    together = frame[frame["C"] == 4]
    assert (together["order_suite_h_p95"] - together["order_suite_h_p05"] > 0).any()
    result = CliRunner().invoke(predict_cli, ["--draws", "0", "--fit-tries", "0", "--orders", "2"])
    assert result.exit_code == 0, result.output
    assert "90 % ranges over 2 other task orders" in result.output


def test_perturbed_fits_move_the_tuned_values_only() -> None:
    base = load_scenario("paper-rtx5090").synthetic
    moved = perturbed(base, np.random.default_rng(0))
    assert moved.archs["LO"].turns_median != base.archs["LO"].turns_median
    assert moved.archs["LO"].system_prompt_tokens == base.archs["LO"].system_prompt_tokens
    assert all(moved.categories[c].count == base.categories[c].count for c in base.categories)
    assert 0 < moved.archs["HCL"].delegate_p < 1


def test_ranged_text_marks_a_point_outside_its_range() -> None:
    frame = pd.DataFrame([{"device": "d", "arch": "LO", "C": 1, "suite_h": 2.0}])
    bands = pd.DataFrame([{"device": "d", "arch": "LO", "C": 1, "suite_h_p05": 1.0, "suite_h_p95": 1.5}])
    joined = with_ranges(frame, PaperRanges(bands, pd.DataFrame()))
    assert ranged_text(joined, "suite_h").iloc[0] == "2.00 [1.00, 1.50]*"
    assert PaperRanges(pd.DataFrame(), pd.DataFrame()).fit_note() == "no range over C = 1 fits was asked for"
