"""Scenarios, profiles, the roofline, run directories and sweeps."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from agbench.config import Architecture
from agbench.errors import AgbenchError
from agbench.sim import load_scenario, run_matrix, shipped_scenarios, simulate
from agbench.sim.predictors.roofline import Roofline
from agbench.sim.profiles import Profile, ServerRates
from agbench.sim.sweep import matrix_jobs, result_fingerprint, run_jobs, sweep
from agbench.sim.workloads.synthetic import SyntheticParams, synthetic_workload
from agbench.store import RunStore
from agbench.trajectory import TrajectorySet

PAPER = ("paper-rtx5090", "paper-max395")


def test_shipped_scenarios_load_and_the_paper_devices_fit_their_pool() -> None:
    names = shipped_scenarios()
    for required in (*PAPER, "h200-27b", "this-machine-smollm2", "this-machine-qwen05b"):
        assert required in names
    for name in names:
        sc = load_scenario(name)
        assert sc.workload().tasks
    for name in PAPER:
        sc = load_scenario(name)
        roof = Roofline(sc.profile.device, sc.profile.model, sc.profile.server)
        assert roof.kv_capacity_tokens() >= sc.profile.server.n_ctx  # the paper ran 65,536 tokens
        assert not any(line.startswith("WARNING") for line in roof.assumptions())
        assert len(sc.workload().tasks) == 60


def test_roofline_orders_the_devices_by_bandwidth_and_compute() -> None:
    rates = {}
    for name in (*PAPER, "h200-27b"):
        p = load_scenario(name).profile
        rates[name] = Roofline(p.device, p.model, p.server).rates()
    assert (
        rates["paper-max395"].decode_step_s
        > rates["paper-rtx5090"].decode_step_s
        > rates["h200-27b"].decode_step_s
    )
    assert rates["paper-max395"].prefill_tok_s < rates["paper-rtx5090"].prefill_tok_s
    assert rates["paper-rtx5090"].spec_tokens_per_step > 1.0  # MTP


def test_unknown_scenario_lists_the_shipped_ones() -> None:
    with pytest.raises(AgbenchError, match="paper-rtx5090"):
        load_scenario("no-such-device")


def test_bad_scenario_key_is_a_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[device]\nname = "x"\nbandwdith_gb_s = 3\n')
    with pytest.raises(AgbenchError, match="bandwdith_gb_s"):
        load_scenario(bad)
    bad.write_text("[device\n")
    with pytest.raises(AgbenchError, match="not valid TOML"):
        load_scenario(bad)


def test_profile_and_synthetic_params_round_trip_through_toml(tmp_path: Path) -> None:
    profile = load_scenario("this-machine-smollm2").profile
    profile.fit = {"prefill": {"r2": 0.98, "n": 40}}
    profile.save(tmp_path / "p.toml")
    assert Profile.load(tmp_path / "p.toml") == profile
    params = SyntheticParams()
    params.archs["LO"].turns_median = 7.5
    params.save(tmp_path / "w.toml")
    assert SyntheticParams.load(tmp_path / "w.toml") == params


def test_run_matrix_writes_a_run_directory_with_one_configuration_per_cell(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run_matrix(
        "paper-rtx5090",
        archs=[Architecture.LO, Architecture.HCL],
        concurrency=[1, 4],
        out_dir=out,
        limit=6,
    )
    meta = json.loads((out / "run.json").read_text())
    assert meta["source"] == "sim"
    assert meta["agent_kind"] == "sim-synthetic"
    summary = json.loads((out / "summary.json").read_text())
    cells = {(c["architecture"], c["concurrency"]) for c in summary["configurations"]}
    assert cells == {("LO", 1), ("LO", 4), ("HCL", 1), ("HCL", 4)}
    assert all(c["tasks"] == 6 for c in summary["configurations"])
    assert (out / "summary.html").is_file()
    results = pd.read_csv(out / "results.csv")
    assert len(results) == 24
    calls = RunStore.open(out).table("model_calls")
    assert set(calls["endpoint"]) == {"local", "cloud"}
    with pytest.raises(AgbenchError, match="already holds a run"):
        run_matrix("paper-rtx5090", archs=[Architecture.LO], concurrency=[1], out_dir=out, limit=1)


def test_calibrated_profile_overrides_the_scenario(tmp_path: Path) -> None:
    overlay = tmp_path / "cal.toml"
    overlay.write_text('[server.rates]\nsource = "calibrated"\nprefill_tok_s = 50.0\ndecode_step_s = 0.1\n')
    sc = load_scenario("paper-rtx5090").with_profile(overlay)
    assert sc.profile.server.rates == ServerRates(prefill_tok_s=50.0, decode_step_s=0.1, source="calibrated")
    assert sc.profile.device.name == "rtx5090"


def test_a_server_profile_is_not_taken_for_a_calibrated_one() -> None:
    """profile-server's file has the server's rates but no agent behaviour: laid over a
    scenario it would fail on its own keys; the error says which file it is and what to run."""
    server_profile = (
        Path(__file__).parents[2] / "calibration" / "reference" / "dev-profile" / "server_profile.toml"
    )
    with pytest.raises(AgbenchError, match=r"is a server profile .* agbench calibrate RUN --server-profile"):
        load_scenario("this-machine-smollm2").with_profile(server_profile)


def test_replay_of_a_trajectory_file(tmp_path: Path) -> None:
    wl = synthetic_workload(load_scenario("this-machine-smollm2").synthetic, seed=3)
    path = tmp_path / "traj.jsonl"
    wl.trajectories.save(path)
    out = run_matrix(
        "this-machine-smollm2",
        archs=[Architecture.LO],
        concurrency=[1],
        out_dir=tmp_path / "r",
        trajectories=path,
    )
    assert json.loads((out / "run.json").read_text())["agent_kind"] == "sim-replay"
    runs = RunStore.open(out).table("task_runs")
    assert len(runs) == len(TrajectorySet.load(path).trajectories) // 4
    assert set(runs["status"]) == {"success"}


def test_local_processes_give_the_same_results_as_in_process() -> None:
    sc = load_scenario("paper-max395")
    wl = sc.workload(limit=8)
    jobs = matrix_jobs(sc, wl, [Architecture.LO, Architecture.HLL], [1, 2], seed=5)
    here = run_jobs(jobs, workers=1)
    pooled = run_jobs(jobs, workers=2)
    assert result_fingerprint(here) == result_fingerprint(pooled)


def test_ray_missing_is_a_clear_error() -> None:
    try:
        import ray  # noqa: F401
    except ImportError:
        sc = load_scenario("paper-max395")
        jobs = matrix_jobs(sc, sc.workload(limit=1), [Architecture.CO], [1], seed=0)
        with pytest.raises(AgbenchError, match="agbench\\[ray\\]"):
            run_jobs(jobs, ray="local")
    else:
        pytest.skip("ray is installed")


def test_sweep_writes_one_run_per_scenario_and_seed(tmp_path: Path) -> None:
    dirs = sweep(
        ["paper-max395"],
        seeds=[0, 1],
        archs=[Architecture.CO],
        concurrency=[2],
        out_root=tmp_path,
        workers=1,
        limit=4,
    )
    assert [d.name for d in dirs] == ["paper-max395-seed0", "paper-max395-seed1"]
    for d in dirs:
        assert json.loads((d / "summary.json").read_text())["configurations"][0]["tasks"] == 4


def test_simulate_returns_records_in_memory() -> None:
    sc = load_scenario("paper-rtx5090")
    result = simulate(sc.profile, "HLL", 2, 0, sc.workload(limit=5))
    assert len(result.task_runs()) == 5
    assert result.table("model_calls")
    assert result.table("server_samples")


def test_pool_grows_with_slots_when_sized_per_slot() -> None:
    from agbench.sim.profiles import ServerProfile

    fixed = ServerProfile(n_ctx=4096, n_parallel=0)
    per_slot = ServerProfile(n_ctx=4096, n_parallel=0, n_ctx_per_slot=4096)
    assert fixed.pool_tokens(16) == 4096
    assert fixed.slot_ctx(16) == 256
    assert per_slot.pool_tokens(16) == 16 * 4096
    assert per_slot.slot_ctx(16) == 4096
