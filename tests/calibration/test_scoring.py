"""Validation scoring: a missing value is a miss, a saturated row is no pass, outcomes count."""

from __future__ import annotations

from typing import Any

from agbench.calibration.scoring import (
    brier,
    modal_outcomes,
    outcome_agreement,
    predictive_median,
    row_passes,
    saturated,
    score_metric,
)
from agbench.calibration.validation import compare
from agbench.config import Architecture
from agbench.results import ConfigurationSummary, RunSummary


def _peak(fraction: float) -> ConfigurationSummary:
    """A configuration with only its peak-KV fraction set (all saturated() reads)."""
    return ConfigurationSummary.model_construct(kv_peak_fraction=fraction)


def _row(live: float | None, sim: float | None, held_out: bool = True, **kw: Any) -> dict[str, Any]:
    missing = live is None or sim is None
    err = None if missing or not live else (sim - live) / live * 100  # type: ignore[operator]
    return {
        "architecture": "LO",
        "concurrency": 4,
        "held_out": held_out,
        "live": live,
        "sim": sim,
        "error_pct": err,
        "abs_diff": None if missing else abs(sim - live),  # type: ignore[operator]
        "missing": missing,
        **kw,
    }


def test_a_row_missing_on_one_side_is_a_miss_and_the_worst_row() -> None:
    rows = [_row(100.0, 101.0), _row(100.0, None)]
    scores = score_metric("suite_wall_s", "relative", rows)
    assert scores["pass_rate"] == 0.5
    assert scores["missing_rows"] == 1
    assert scores["worst_row"]["missing"] is True


def test_rows_at_the_pool_cap_on_both_sides_are_flagged_and_not_passes() -> None:
    assert saturated(_peak(1.0), _peak(0.99))
    assert not saturated(_peak(1.0), _peak(0.7))
    row = _row(4096.0, 4096.0, saturated=True)
    assert not row_passes("kv_peak_cells", "relative", row)
    assert score_metric("kv_peak_cells", "relative", [row])["saturated_rows"] == 1


def test_counts_pass_within_their_absolute_bound() -> None:
    assert row_passes("context_limit", "count", _row(3.0, 4.0))
    assert not row_passes("context_limit", "count", _row(3.0, 5.0))
    assert not row_passes("success", "count", _row(3.0, 4.0))


def test_coverage_counts_live_values_inside_the_interval() -> None:
    rows = [_row(100.0, 98.0, sim_p05=95.0, sim_p95=105.0), _row(100.0, 80.0, sim_p05=75.0, sim_p95=90.0)]
    assert score_metric("suite_wall_s", "relative", rows)["coverage_90"] == 0.5


def test_matching_counts_with_other_tasks_failing_is_no_agreement() -> None:
    live = {("LO", 4, "a"): "success", ("LO", 4, "b"): "context_limit"}
    sim = {("LO", 4, "a"): "context_limit", ("LO", 4, "b"): "success"}
    assert outcome_agreement(live, sim)["all"] == 0.0
    assert outcome_agreement(live, dict(live))["all"] == 1.0
    assert outcome_agreement(live, {})["all"] == 0.0  # a pair the simulator lacks disagrees


def test_brier_scores_failure_probabilities_against_live() -> None:
    live = {("LO", 4, "a"): "success", ("LO", 4, "b"): "context_limit"}
    sure = [dict(live)] * 4
    assert brier(live, sure)["all"] == 0.0
    half = [dict(live), {("LO", 4, "a"): "context_limit", ("LO", 4, "b"): "success"}]
    assert brier(live, half)["all"] == 0.25


def test_the_drawn_point_is_the_median_and_a_count_stays_a_count_some_run_gave() -> None:
    assert predictive_median([10.0, 1.0, 2.0], "relative") == 2.0
    assert predictive_median([3.0, 4.0], "relative") == 3.5
    assert predictive_median([3.0, 4.0], "count") == 3.0  # never 3.5 tasks
    assert predictive_median([0.0, 8.0, 8.0, 8.0, 0.0], "count") == 8.0


def test_each_pair_takes_the_status_most_simulations_gave_and_a_tie_goes_to_the_nominal() -> None:
    nominal = {("LO", 8, "a"): "success", ("LO", 8, "b"): "context_limit"}
    draws = [
        {("LO", 8, "a"): "context_limit", ("LO", 8, "b"): "success"},
        {("LO", 8, "a"): "context_limit", ("LO", 8, "b"): "context_limit"},
        {("LO", 8, "a"): "context_limit"},  # a draw that lacks a pair does not vote for it
    ]
    assert modal_outcomes([nominal, *draws]) == {
        ("LO", 8, "a"): "context_limit",
        ("LO", 8, "b"): "context_limit",
    }
    assert modal_outcomes([nominal, draws[0]]) == nominal


def _summary(**configs: float) -> RunSummary:
    """A summary with one LO configuration per ``C<level>=suite wall``."""
    return RunSummary.model_construct(
        run_id="r",
        configurations=[
            ConfigurationSummary.model_construct(
                architecture=Architecture.LO, concurrency=int(k[1:]), suite_wall_s=v, kv_peak_fraction=None
            )
            for k, v in configs.items()
        ],
    )


def test_with_draws_a_row_scores_their_median_and_keeps_the_nominal_run_beside_it() -> None:
    live, nominal = _summary(C2=100.0, C4=100.0), _summary(C2=130.0, C4=100.0)
    draws = [_summary(C2=101.0, C4=90.0), _summary(C2=99.0), _summary(C2=140.0, C4=110.0)]
    rows = {r["concurrency"]: r for r in compare([(live, nominal)], [1], [draws])["suite_wall_s"]["rows"]}
    assert rows[2]["sim_nominal"] == 130.0
    assert rows[2]["sim"] == 115.5  # median of 101, 99, 140 and the nominal 130
    assert rows[2]["error_pct"] == 15.5
    assert (rows[2]["sim_p05"], rows[2]["sim_p95"]) == (99.3, 138.5)
    assert rows[4]["sim"] == 100.0  # a draw without the figure does not vote
    plain = compare([(live, nominal)], [1])["suite_wall_s"]["rows"]
    assert [r["sim"] for r in plain] == [130.0, 100.0]
    assert "sim_nominal" not in plain[0]
