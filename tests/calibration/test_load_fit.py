"""Server-level calibration from load runs: fit on the lowest rates, predict the rest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agbench.calibration.load_fit import lowest_levels
from agbench.cli import main
from agbench.errors import AgbenchError
from agbench.load import TokenDistribution, rate_level
from agbench.sim.open_loop import run_load_sim


def _levels() -> list:
    p, o = TokenDistribution.parse("96:160"), TokenDistribution.parse("12:24")
    return [rate_level(r, 24, p, o, poisson=True, seed=3) for r in (0.2, 0.4, 1.5, 3.0)]


def test_lowest_levels_by_offered_rate() -> None:
    levels = list(reversed(_levels()))
    assert [lv.name for lv in lowest_levels(levels, 2)] == ["poisson-0.2", "poisson-0.4"]
    with pytest.raises(AgbenchError, match="at least 1"):
        lowest_levels(levels, 0)


def test_fitting_a_simulated_load_run_recovers_its_server(tmp_path: Path) -> None:
    """A load run of the simulator itself, fitted on its two lowest rates, predicts the two
    higher ones: the fitter and the open-loop path agree on what a rate means."""
    run = run_load_sim("this-machine-smollm2", _levels(), tmp_path / "run")
    runner = CliRunner()
    profile = tmp_path / "p.toml"
    result = runner.invoke(main, ["calibrate", str(run), "-o", str(profile), "--fit-levels", "2"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(main, ["validate", "--profile", str(profile), str(run), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "validation.json").read_text())
    assert report["fitted_levels"] == ["poisson-0.2", "poisson-0.4"]
    rows = report["metrics"]["e2e_p50_s"]["rows"]
    assert [r["held_out"] for r in rows] == [False, False, True, True]
    for name in ("ttft_p50_s", "e2e_p50_s", "itl_p50_s"):
        assert report["metrics"][name]["mape_held_out"] < 25.0, name


def test_options_that_do_not_apply_are_refused_not_dropped(tmp_path: Path) -> None:
    """A load run's fit takes no server profile or concurrency, a sweep's no --fit-levels, and a
    load-calibrated profile (the server alone) cannot replay a sweep: each says so in one line
    instead of writing a profile or a report that silently ignored what was asked."""
    run = run_load_sim("this-machine-smollm2", _levels()[:2], tmp_path / "run")
    runner = CliRunner()
    result = runner.invoke(
        main,
        [
            "calibrate",
            str(run),
            "--server-profile",
            "sp.toml",
            "--fit-concurrency",
            "1",
            "-o",
            str(tmp_path / "p.toml"),
        ],
    )
    assert result.exit_code == 2
    assert "is a load run: --fit-concurrency, --server-profile apply to agent sweeps" in result.output
    assert not (tmp_path / "p.toml").exists()

    sweep = Path(__file__).parents[2] / "calibration" / "reference" / "run"
    result = runner.invoke(
        main, ["calibrate", str(sweep), "--fit-levels", "2", "-o", str(tmp_path / "s.toml")]
    )
    assert result.exit_code == 2
    assert "--fit-levels applies to a load run" in result.output

    profile = tmp_path / "load.toml"
    assert runner.invoke(main, ["calibrate", str(run), "-o", str(profile)]).exit_code == 0
    result = runner.invoke(
        main, ["validate", "--calibration", str(profile), str(sweep), "--out", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "was calibrated from a load run" in result.output
    assert not (tmp_path / "validation.json").exists()


def test_a_sweep_run_is_not_a_load_run(tmp_path: Path) -> None:
    (tmp_path / "run.json").write_text(json.dumps({"run_id": "x", "source": "live", "agent_kind": "replay"}))
    result = CliRunner().invoke(main, ["calibrate", str(tmp_path), "-o", str(tmp_path / "p.toml")])
    assert result.exit_code == 2


def test_only_calls_that_found_a_free_slot_measure_the_overhead(tmp_path: Path) -> None:
    """A call sent while every slot was busy waited in the server's queue: that wait is not
    per-request overhead (the simulator queues requests itself), so the fit leaves it out."""
    import pandas as pd

    from agbench.calibration.load_fit import fit_load_profile, found_a_free_slot

    calls = pd.DataFrame({"t_start": [0.0, 1.0, 5.0, 5.5], "total_s": [4.0, 6.0, 0.2, 1.0]})
    # 1 s: the 0 s call is in flight; 5 s: only the 1 s call (ends at 7 s); 5.5 s: the 1 s call
    assert found_a_free_slot(calls, 1).tolist() == [True, False, False, False]
    assert found_a_free_slot(calls, 2).tolist() == [True, True, True, True]
    # a saturated simulated server (no overhead of its own: the scenario's is 0): the fitted
    # overhead stays near zero although most calls queued for seconds
    p, o = TokenDistribution.parse("256"), TokenDistribution.parse("32")
    levels = [rate_level(r, 24, p, o, poisson=False, seed=0) for r in (10.0, 20.0)]
    run = run_load_sim("this-machine-smollm2", levels, tmp_path / "run")
    overlay = fit_load_profile(run, fit_levels=2)
    assert overlay["server"]["request_overhead_s"] < 0.01


def test_requests_share_the_chat_templates_prefix_as_llama_server_cached_it() -> None:
    """Every chat request starts with the template's header, which llama-server reuses from the
    slot it picks: the fit measures it (median cached tokens) and the simulated requests share
    it, while a request's own prefix group is kept."""
    import pandas as pd

    from agbench.calibration.load_fit import template_prefix_tokens, with_template_prefix
    from agbench.load import RequestSpec

    calls = pd.DataFrame(
        {"cached_tokens": [0, 30, 30, 30, 99], "error_class": ["", "", "", "", "context_limit"]}
    )
    assert template_prefix_tokens(calls) == 30
    level = _levels()[0]
    own = RequestSpec(0.0, 100, 10, "agents", 60)
    level = type(level)(level.name, level.kind, level.rate, (*level.requests[:2], own))
    shared = with_template_prefix([level], 30)[0].requests
    assert [(r.prefix_group, r.prefix_tokens) for r in shared] == [
        ("chat-template", 30),
        ("chat-template", 30),
        ("agents", 60),
    ]
    assert [r.prompt_tokens for r in shared] == [r.prompt_tokens for r in level.requests]
    assert with_template_prefix([level], 0) == [level]
