"""Open-loop load workloads (agbench/load.py) and their simulation (sim/open_loop.py)."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest
from click.testing import CliRunner

from agbench.cli import main
from agbench.errors import AgbenchError
from agbench.load import (
    TokenDistribution,
    levels_for_sim,
    parse_rates,
    rate_level,
    read_trace,
    write_trace,
)
from agbench.metrics import read_tables
from agbench.report.load import LOAD_COLUMNS
from agbench.sim import load_scenario
from agbench.sim.open_loop import run_load_sim, simulate_load
from agbench.store import RunStore


def test_token_distributions_parse_and_reject() -> None:
    assert TokenDistribution.parse("64") == TokenDistribution("fixed", 64)
    assert TokenDistribution.parse("8:16").kind == "uniform"
    assert TokenDistribution.parse("lognormal:100,0.5").kind == "lognormal"
    for bad in ("0", "-3", "16:8", "x", "lognormal:0,1", "lognormal:5"):
        with pytest.raises(ValueError, match="bad token count"):
            TokenDistribution.parse(bad)


def test_constant_and_poisson_levels() -> None:
    fixed = TokenDistribution.parse("32")
    constant = rate_level(2.0, 5, fixed, fixed, poisson=False, seed=0)
    assert [r.t for r in constant.requests] == [0.0, 0.5, 1.0, 1.5, 2.0]
    poisson = rate_level(4.0, 2000, fixed, fixed, poisson=True, seed=1)
    gaps = [b.t - a.t for a, b in zip(poisson.requests, poisson.requests[1:], strict=False)]
    assert statistics.mean(gaps) == pytest.approx(0.25, rel=0.1)
    assert poisson.requests == rate_level(4.0, 2000, fixed, fixed, poisson=True, seed=1).requests
    with pytest.raises(ValueError, match="rate must be"):
        parse_rates("0.5,-1")


def test_trace_round_trip_and_bad_line(tmp_path: Path) -> None:
    fixed = TokenDistribution.parse("10")
    level = rate_level(1.0, 3, fixed, fixed, poisson=False, seed=0, prefix_tokens=4)
    path = tmp_path / "t.jsonl"
    write_trace(level, path)
    assert read_trace(path).requests == level.requests
    path.write_text('{"t": 0, "prompt_tokens": 5, "output_tokens": 2}\n{"t": 1, "prompt_tokens": 0}\n')
    with pytest.raises(AgbenchError, match=r"t\.jsonl:2: bad request line"):
        read_trace(path)
    with pytest.raises(AgbenchError, match="exactly one"):
        levels_for_sim(None, None, 3, "8", "8", 0)


def test_simulated_open_loop_saturates_like_a_server() -> None:
    profile = load_scenario("this-machine-smollm2").profile
    p, o = TokenDistribution.parse("128"), TokenDistribution.parse("16")
    levels = [rate_level(r, 30, p, o, poisson=False, seed=0) for r in (0.1, 50.0)]
    records = simulate_load(profile, levels)
    calls = [r for r in records if type(r).__name__ == "ModelCall"]
    assert len(calls) == 60
    assert {c.agent for c in calls} == {"local"}
    assert {c.concurrency for c in calls} == {0}
    by_level = {lv.task: sorted(c.ttft_s for c in calls if c.task == lv.task) for lv in levels}
    slow, fast = (statistics.median(by_level[lv.task]) for lv in levels)
    assert fast > 5 * slow  # at 50 requests/s the queue grows; at 0.1/s every request is alone
    assert records == simulate_load(profile, levels)  # deterministic


@pytest.mark.slow
def test_sim_load_run_directory_and_cli(tmp_path: Path) -> None:
    p, o = TokenDistribution.parse("64"), TokenDistribution.parse("8")
    levels = [rate_level(r, 6, p, o, poisson=False, seed=0) for r in (0.5, 4.0)]
    run = run_load_sim("this-machine-smollm2", levels, tmp_path / "simload")
    summary = json.loads((run / "summary.json").read_text())
    assert [lv["level"] for lv in summary["levels"]] == ["rate-0.5", "rate-4"]
    assert all(lv["completed"] == 6 for lv in summary["levels"])
    assert (run / "summary.html").read_text().count("<svg") == 1
    tables = read_tables(RunStore.open(run), LOAD_COLUMNS)
    assert set(tables["model_calls"]["prompt_tokens"]) == {64}
    # the same levels again, from the run directory, through the CLI
    result = CliRunner().invoke(
        main,
        [
            "sim",
            "--scenario",
            "this-machine-smollm2",
            "--requests",
            str(run),
            "--out",
            str(tmp_path / "again"),
        ],
    )
    assert result.exit_code == 0, result.output
    again = json.loads((tmp_path / "again" / "summary.json").read_text())
    assert again["levels"] == summary["levels"]
    bad = CliRunner().invoke(
        main, ["sim", "--scenario", "this-machine-smollm2", "--requests", str(run), "--out", str(run)]
    )
    assert bad.exit_code == 2
    assert f"{run} already holds a run; choose another --out" in bad.output
    sweep = Path(__file__).parents[1] / "calibration" / "reference" / "run"
    bad = CliRunner().invoke(main, ["sim", "--scenario", "this-machine-smollm2", "--requests", str(sweep)])
    assert bad.exit_code == 2
    assert "is a replay run: its run.json names no load levels" in bad.output
    bad = CliRunner().invoke(main, ["load", "--rates", "1", "--trace", "x.jsonl"])
    assert bad.exit_code == 2
    assert "exactly one of --rates, --poisson or --trace" in bad.output
