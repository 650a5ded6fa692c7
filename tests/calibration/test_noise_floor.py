"""The noise floor between live recordings: measured from pairs, shipped, and the least a band is;
and the held-out error, the least a band at a level the fit did not see is."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from agbench.calibration import noise_floor
from agbench.calibration.intervals import DrawPlan
from agbench.calibration.noise_floor import Z90, floor_sigmas, floored, measure, widened
from agbench.calibration.sim_intervals import run_intervals
from agbench.calibration.validation import compare
from agbench.cli import main
from agbench.config import Architecture
from agbench.errors import AgbenchError
from agbench.results import ConfigurationSummary, RunSummary
from agbench.results.summary import MetricInterval

REPO = Path(__file__).resolve().parents[2]


def _summary(run_id: str, **walls: float) -> RunSummary:
    """LO configurations ``C<level>=suite wall``."""
    return RunSummary.model_construct(
        run_id=run_id,
        configurations=[
            ConfigurationSummary.model_construct(
                device="d",
                architecture=Architecture.LO,
                concurrency=int(k[1:]),
                suite_wall_s=v,
                kv_peak_fraction=None,
            )
            for k, v in walls.items()
        ],
    )


def test_a_recording_that_ran_slower_throughout_is_no_noise_only_its_spread_is() -> None:
    base = _summary("a", C1=10.0, C2=20.0, C4=40.0)
    slower = _summary("b", C1=12.0, C2=24.0, C4=48.0)  # 20 % slower everywhere: calibrated away
    floor = measure([(slower, base)])
    assert floor["sigma"]["suite_wall_s"] == pytest.approx(0.0, abs=1e-12)
    assert floor["offset"]["suite_wall_s"] == [pytest.approx(math.log(1.2))]
    # one configuration 10 % off each way about the pair's mean: that spread is the noise
    apart = _summary("c", C1=10.0 * math.exp(0.1), C2=20.0 * math.exp(-0.1), C4=40.0)
    got = measure([(apart, base)])["sigma"]["suite_wall_s"]
    assert got == pytest.approx(math.sqrt((0.01 + 0.01) / 2) / math.sqrt(2))


def test_pairs_are_centred_apart_and_a_metric_needs_more_rows_than_pairs() -> None:
    a, b = _summary("a", C1=10.0, C2=20.0), _summary("b", C1=10.0 * math.exp(0.2), C2=20.0)
    c, d = _summary("c", C1=5.0), _summary("d", C1=9.0)  # one row: no spread of its own
    floor = measure([(b, a), (d, c)])
    # two pairs, three rows: one degree of freedom left after the two offsets
    assert floor["rows"]["suite_wall_s"] == 3
    assert floor["sigma"]["suite_wall_s"] == pytest.approx(math.sqrt(2 * 0.1**2 / 1) / math.sqrt(2))
    assert "suite_wall_s" not in measure([(d, c)])["sigma"]
    with pytest.raises(AgbenchError):
        measure([])


def test_a_band_is_widened_to_the_floor_on_each_side_and_never_narrowed() -> None:
    reach = math.exp(Z90 * 0.1)
    lo, hi = widened((95.0, 130.0), 100.0, 0.1)
    assert lo == pytest.approx(100.0 / reach)  # the narrow side grows to the floor
    assert hi == 130.0  # the side already wider stays
    assert widened((50.0, 200.0), 100.0, 0.1) == (50.0, 200.0)
    assert widened((95.0, 105.0), 100.0, 0.0) == (95.0, 105.0)
    assert widened((0.0, 0.0), 0.0, 0.1) == (0.0, 0.0)  # no ratio about a zero point


def test_validation_rows_carry_the_widened_band_and_coverage_counts_it() -> None:
    live, nominal = _summary("l", C2=112.0), _summary("s", C2=100.0)
    draws = [[_summary("s", C2=99.0), _summary("s", C2=101.0)]]
    plain = compare([(live, nominal)], [1], draws)["suite_wall_s"]
    floored = compare([(live, nominal)], [1], draws, {"suite_wall_s": 0.1})["suite_wall_s"]
    assert plain["coverage_90"] == 0.0
    assert floored["rows"][0]["sim_p95"] == pytest.approx(100.0 * math.exp(Z90 * 0.1))
    assert floored["coverage_90"] == 1.0
    assert floored["rows"][0]["sim"] == plain["rows"][0]["sim"]  # the point does not move


def test_the_shipped_floor_is_what_the_development_repeats_give() -> None:
    shipped = noise_floor.load(noise_floor.default_floor())
    measured = noise_floor.measure_runs([REPO / name for pair in shipped["recordings"] for name in pair])
    assert set(measured["sigma"]) == set(shipped["sigma"])
    for key, sigma in shipped["sigma"].items():
        assert measured["sigma"][key] == pytest.approx(sigma, rel=1e-9), key
    assert floor_sigmas({"noise_floor": shipped}) == {k: v for k, v in shipped["sigma"].items() if v > 0}


def test_bad_input_is_a_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "floor.toml"
    bad.write_text('[sigma]\nsuite_wall_s = "wide"\n')
    with pytest.raises(AgbenchError, match="not a noise floor"):
        noise_floor.load(bad)
    with pytest.raises(AgbenchError, match="not found"):
        noise_floor.load(tmp_path / "missing.toml")
    result = CliRunner().invoke(main, ["noise-floor", str(tmp_path), "-o", str(tmp_path / "f.toml")])
    assert result.exit_code != 0
    assert "pairs of run directories" in result.output
    reference = REPO / "calibration" / "reference"
    with pytest.raises(AgbenchError, match="load is a load run; noise-floor pairs agent sweeps"):
        noise_floor.measure_runs([reference / "run", reference / "load"])
    result = CliRunner().invoke(
        main,
        [
            "calibrate",
            str(tmp_path),
            "-o",
            str(tmp_path / "p.toml"),
            "--noise-floor",
            str(bad),
            "--no-noise-floor",
        ],
    )
    assert result.exit_code != 0


def test_sim_draws_widen_each_floored_figure_about_the_draws_median() -> None:
    metrics = {
        "suite_wall_s": MetricInterval(p05=98.0, p50=100.0, p95=103.0, draws=10),
        "kv_peak_cells": MetricInterval(p05=900.0, p50=1000.0, p95=1100.0, draws=10),
    }
    out = floored(metrics, {"suite_wall_s": 0.1, "ttft_p50_s": 0.2})
    reach = math.exp(Z90 * 0.1)
    assert out["suite_wall_s"].p05 == pytest.approx(100.0 / reach)
    assert out["suite_wall_s"].p95 == pytest.approx(100.0 * reach)
    assert out["kv_peak_cells"] == metrics["kv_peak_cells"]  # no floor for it: as drawn
    assert metrics["suite_wall_s"].p05 == 98.0  # the draws' own figures are not changed


def test_calibrate_lays_the_shipped_floor_into_the_profile_unless_told_otherwise(tmp_path: Path) -> None:
    from agbench.calibration import calibrate
    from agbench.sim.plain_data import load_toml

    run = REPO / "calibration" / "reference" / "run"
    with_floor = load_toml(calibrate([run], tmp_path / "a.toml", [1]))["fit"]
    assert floor_sigmas(with_floor) == noise_floor.load(noise_floor.default_floor())["sigma"]
    assert "run-2" in with_floor["noise_floor"]["source"]
    without = load_toml(calibrate([run], tmp_path / "b.toml", [1], noise_floor=None))["fit"]
    assert "noise_floor" not in without


def test_a_held_out_rows_band_reaches_the_held_out_error_and_a_fitted_rows_does_not() -> None:
    live, nominal = _summary("l", C1=112.0, C4=130.0), _summary("s", C1=100.0, C4=100.0)
    draws = [[_summary("s", C1=99.0, C4=99.0), _summary("s", C1=101.0, C4=101.0)]]
    rows = compare([(live, nominal)], [1], draws, {"suite_wall_s": 0.1}, {"suite_wall_s": 0.3})[
        "suite_wall_s"
    ]
    fitted, held = rows["rows"]
    assert fitted["sim_p95"] == pytest.approx(100.0 * math.exp(Z90 * 0.1))  # the noise floor alone
    assert held["sim_p95"] == pytest.approx(100.0 * math.exp(0.3))  # the larger of the two
    assert held["sim_p05"] == pytest.approx(100.0 * math.exp(-0.3))
    assert held["sim"] == 100.0  # the point does not move
    assert rows["coverage_90"] == 1.0  # held-out rows only: 130 lies within x/ e^0.3


def test_sim_draws_widen_only_the_levels_the_fit_did_not_see() -> None:
    summaries = [_summary("draw", C1=100.0 + k, C8=200.0 + k) for k in range(5)]
    draws = [s.configurations for s in summaries]
    plan = DrawPlan(kind="calibrated", held_out={"suite_wall_s": 0.5}, fit_levels=[1])
    got = run_intervals(plan, draws, [("d", "LO", 1), ("d", "LO", 8)])
    at = {c.concurrency: c.intervals.metrics["suite_wall_s"] for c in got.configurations}
    assert at[1].p95 < 105.0  # as drawn
    assert at[8].p95 == pytest.approx(at[8].p50 * math.exp(0.5))
