"""The drift from a server profile to the calibration run's configurations, and its use as the
interval's noise floor when it is the larger spread."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from agbench.calibration.calibrate import level_rates
from agbench.calibration.run_drift import run_drift, run_level
from agbench.sim.profiles import ServerRates
from agbench.sim.uncertainty import rate_draws, scaled_rates

RATES = ServerRates(prefill_tok_s=200.0, decode_step_s=0.02, decode_step_per_kv_token_s=1e-5)


def _call(arch: str, slower: float, *, run: str = "r1", concurrency: int = 1, prompt: int = 400) -> dict:
    """One local call whose decode and prefill take ``slower`` x what RATES predict."""
    out, cached = 40, 100
    step = RATES.decode_step(1, prompt + out / 2)
    per_prompt_token = 1.0 / RATES.prefill_rate(cached + (prompt - cached) / 2)
    return {
        "run_id": run,
        "architecture": arch,
        "endpoint": "local",
        "concurrency": concurrency,
        "error_class": None,
        "prompt_tokens": prompt,
        "cached_tokens": cached,
        "completion_tokens": out,
        "predicted_ms": 1000 * slower * step * out,
        "prompt_ms": 1000 * slower * per_prompt_token * (prompt - cached),
    }


def test_each_configuration_is_its_median_and_the_spread_is_about_the_profile() -> None:
    rows = [_call("LO", 1.2), _call("LO", 1.2), _call("LO", 5.0)]  # median 1.2: one outlier
    rows += [_call("HLL", 1 / 1.2), _call("HCL", 1.0, run="r2")]
    rows += [_call("LO", 9.0, concurrency=2)]  # batched: not the profile's batch-1 rate
    drift = run_drift(pd.DataFrame(rows), RATES)
    assert drift["configurations"] == 3
    assert drift["calls"] == 5
    expected = math.sqrt((2 * math.log(1.2) ** 2) / 3)
    assert drift["decode_rel_sd"] == pytest.approx(expected)
    assert drift["prefill_rel_sd"] == pytest.approx(expected)
    assert drift["decode_bias"] == pytest.approx(0.0, abs=1e-12)


def test_one_configuration_gives_its_offset_but_no_spread() -> None:
    drift = run_drift(pd.DataFrame([_call("LO", 1.3), _call("LO", 1.3)]), RATES)
    assert math.isnan(drift["decode_rel_sd"])
    assert math.isnan(drift["prefill_rel_sd"])
    assert drift["prefill_bias"] == pytest.approx(math.log(1.3))
    assert drift["configurations"] == 1


def test_no_calls_at_c1_give_no_offset() -> None:
    drift = run_drift(pd.DataFrame([_call("LO", 1.3, concurrency=2)]), RATES)
    assert math.isnan(drift["decode_bias"])
    assert math.isnan(drift["prefill_bias"])
    assert run_level(drift) == {}


def test_draws_take_the_larger_of_the_two_spreads() -> None:
    boot = [{"decode_step_s": 0.02, "prefill_tok_s": 200.0}]

    def spread(noise: dict, drift: dict) -> float:
        fit = {"server_profile": {"bootstrap": boot, "noise": noise, "run_drift": drift}}
        draws = rate_draws(fit, 400, seed=1)
        return float(pd.Series([math.log(d["decode_step_s"] / 0.02) for d in draws]).std())

    quiet = spread({"decode_rel_sd": 0.02}, {})
    drifted = spread({"decode_rel_sd": 0.02}, {"decode_rel_sd": 0.2})
    assert quiet == pytest.approx(0.02, rel=0.15)
    assert drifted == pytest.approx(0.2, rel=0.15)
    assert spread({"decode_rel_sd": 0.2}, {"decode_rel_sd": 0.02}) == pytest.approx(drifted)
    assert spread({"decode_rel_sd": 0.02}, {"decode_rel_sd": float("nan")}) == pytest.approx(quiet)


def test_the_run_level_is_the_mean_offset_per_kind_of_work() -> None:
    rows = [_call("LO", 0.8), _call("HLL", 0.8), _call("HCL", 0.8, run="r2")]
    level = run_level(run_drift(pd.DataFrame(rows), RATES))
    assert level == pytest.approx({"decode": 0.8, "prefill": 0.8})
    # one configuration (a sweep of LO alone): its offset is the level
    alone = run_level(run_drift(pd.DataFrame([_call("LO", 0.8)]), RATES))
    assert alone == pytest.approx({"decode": 0.8, "prefill": 0.8})


def test_calibrated_rates_move_to_the_run_level_and_say_so() -> None:
    rates = {
        "decode_step_s": 0.02,
        "decode_table_batch": [1, 2],
        "decode_table_step_s": [0.01, 0.02],
        "prefill_tok_s": 200.0,
        "prefill_batch_s": 0.03,
        "restore_s_per_k_tokens": 0.5,
        "sources": {"decode_step_s": "measured (p.toml)", "restore_s_per_k_tokens": "measured (p.toml)"},
    }
    out = level_rates(rates, {"decode": 0.8, "prefill": 1.25})
    assert out["decode_step_s"] == pytest.approx(0.016)
    # batch 1 at the decode level; two sequences' step at the prompt level (many tokens a pass)
    assert out["decode_table_step_s"] == pytest.approx([0.008, 0.025])
    assert out["decode_table_batch"] == [1, 2]  # batch sizes are not rates
    assert out["prefill_tok_s"] == pytest.approx(160.0)  # prompt work 1.25x slower
    assert out["prefill_batch_s"] == pytest.approx(0.0375)
    assert out["restore_s_per_k_tokens"] == 0.5  # not prompt work
    assert out["sources"]["decode_step_s"].endswith(
        "x0.800 decode at batch 1, x1.250 prompt work and batched decode from the run's C = 1 calls"
    )
    assert out["sources"]["restore_s_per_k_tokens"] == "measured (p.toml)"


def test_without_a_decode_table_every_decode_term_takes_the_decode_level() -> None:
    rates = {"decode_step_s": 0.02, "decode_step_per_seq_s": 0.01, "prefill_tok_s": 200.0}
    out = level_rates(rates, {"decode": 0.8, "prefill": 1.25})
    assert out["decode_step_s"] == pytest.approx(0.016)
    assert out["decode_step_per_seq_s"] == pytest.approx(0.008)


def test_the_batched_steps_take_their_own_factor_in_every_table_column() -> None:
    rates = {
        "decode_step_per_seq_s": 0.01,
        "decode_table_batch": [1.0, 2.0, 4.0],
        "decode_table_step_s": [0.01, 0.02, 0.03],
        "decode_table_per_kv_token_s": [1e-5, 2e-5, 3e-5],
    }
    out = scaled_rates(rates, 0.5, 1.0, batched=2.0)
    assert out["decode_table_step_s"] == pytest.approx([0.005, 0.04, 0.06])
    assert out["decode_table_per_kv_token_s"] == pytest.approx([5e-6, 4e-5, 6e-5])
    assert out["decode_step_per_seq_s"] == pytest.approx(0.02)  # growth past the table
    # no batched factor: one factor for every decode term, as before
    assert scaled_rates(rates, 0.5, 1.0)["decode_table_step_s"] == pytest.approx([0.005, 0.01, 0.015])


def test_draws_centre_on_the_run_level_and_spread_about_it() -> None:
    boot = [{"decode_step_s": 0.02, "prefill_tok_s": 200.0}]
    bias, rms = math.log(0.8), 0.25  # the configurations' spread about their mean: 0.25^2 - bias^2
    fit = {
        "server_profile": {
            "bootstrap": boot,
            "noise": {"decode_rel_sd": 0.01},
            "run_drift": {"decode_rel_sd": rms, "decode_bias": bias},
            "run_level": {"decode": 0.8, "prefill": 1.0},
        }
    }
    logs = pd.Series([math.log(d["decode_step_s"] / 0.02) for d in rate_draws(fit, 400, seed=1)])
    assert logs.mean() == pytest.approx(bias, abs=0.02)
    assert logs.std() == pytest.approx(math.sqrt(rms**2 - bias**2), rel=0.15)


def test_a_spread_from_three_configurations_draws_a_new_ones_speed_from_a_student_t() -> None:
    boot = [{"decode_step_s": 0.02, "prefill_tok_s": 200.0}]
    bias, rms = math.log(0.8), 0.25
    about = math.sqrt(rms**2 - bias**2)

    def logs(configurations: int | None) -> np.ndarray:
        drift = {"decode_rel_sd": rms, "decode_bias": bias}
        if configurations is not None:
            drift["configurations"] = configurations
        fit = {
            "server_profile": {
                "bootstrap": boot,
                "noise": {"decode_rel_sd": 0.01},
                "run_drift": drift,
                "run_level": {"decode": 0.8, "prefill": 1.0},
            }
        }
        return np.log([d["decode_step_s"] / 0.02 / 0.8 for d in rate_draws(fit, 1000, seed=3)])

    def band(x: np.ndarray) -> float:
        return float(np.percentile(x, 95) - np.percentile(x, 5))

    unknown, three, many = logs(None), logs(3), logs(200)
    # stratified: every law's draws centre exactly on the run's level
    for x in (unknown, three, many):
        assert np.median(x) == pytest.approx(0.0, abs=1e-3)
    assert band(unknown) == pytest.approx(2 * 1.645 * about, rel=0.02)  # the normal, as before
    # t with 2 degrees of freedom, the spread x sqrt(4 / 2): 2.5x the normal band
    assert band(three) == pytest.approx(2 * 2.920 * math.sqrt(2.0) * about, rel=0.03)
    assert band(many) == pytest.approx(band(unknown), rel=0.03)  # many configurations: the normal
