"""Calibration fits a profile from live traces, validation compares sim with live.

All on the committed reference dataset (``calibration/reference/run``: real llama-server,
replay agent, LO/CO/HCL/HLL x C = 1, 2, 4, 8): calibrate on C = 1, 2, validate on every
level. Error *figures* are not asserted here (they depend on the recording machine's load;
``bench/fidelity.py`` prints them); the tests assert what the files must hold and that bad
input is a one-line error.
"""

from __future__ import annotations

import json
import logging
import tomllib
from pathlib import Path
from typing import Any

import pytest
import simpy

from agbench.calibration import calibrate, fit_profile, validate
from agbench.calibration.server_profile import refit_server_profile
from agbench.calibration.traces import load_live
from agbench.calibration.validation import simulate_pair
from agbench.config import Architecture
from agbench.errors import AgbenchError
from agbench.records import ModelCall
from agbench.sim import Profile, run_matrix, simulate
from agbench.sim.entities.local_server import LocalServer
from agbench.sim.profiles import ServerProfile, ServerRates
from agbench.store import RunStore

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "calibration" / "reference" / "run"

pytestmark = pytest.mark.skipif(
    not (REFERENCE / "run.json").is_file(), reason="the reference dataset is not in this checkout"
)


@pytest.fixture(scope="module")
def profile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cal") / "profile.toml"
    return calibrate([REFERENCE], out, concurrency=[1, 2])


@pytest.fixture(scope="module")
def validation(profile: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("val")
    path = validate(profile, [REFERENCE], out)
    assert path == out / "validation.json"
    result: dict[str, Any] = json.loads(path.read_text())
    return result


def test_calibrate_writes_a_profile_whose_fits_have_sample_counts(profile: Path) -> None:
    data = tomllib.loads(profile.read_text())
    Profile.from_dict({k: v for k, v in data.items()}, "calibrated")  # loads as a simulator profile
    assert data["fit"]["concurrency"] == [1, 2]
    rates = data["server"]["rates"]
    assert rates["source"] == "calibrated"
    assert rates["prefill_tok_s"] > 0
    assert rates["decode_step_s"] > 0
    for name in ("server_decode", "server_prefill", "cloud_ttft", "harness_turn_gap"):
        assert data["fit"][name]["samples"] >= 5, name
    # the reference's cloud was a local stand-in: the profile says so and simulates it as one
    assert data["cloud"]["standin_local"] is True
    assert data["fit"]["tools"]["samples"] > 0
    assert set(data["tools"]["wall_s_by_tool"]) <= set(data["fit"]["tools"]["per_tool"])


@pytest.mark.slow
def test_validate_compares_every_live_configuration(validation: dict[str, Any]) -> None:
    metrics = validation["metrics"]
    for name in ("suite_wall_s", "mean_completion_s_common", "context_limit", "ttft_p50_s", "kv_peak_cells"):
        assert name in metrics
        assert isinstance(metrics[name]["mape"], float)
    seen = {(r["architecture"], r["concurrency"]) for r in metrics["suite_wall_s"]["rows"]}
    assert seen == {(a.value, c) for a in Architecture for c in (1, 2, 4, 8)}
    for row in metrics["suite_wall_s"]["rows"]:
        assert set(row) >= {"architecture", "concurrency", "live", "sim", "error_pct"}
        assert row["held_out"] == (row["concurrency"] in (4, 8))
        assert row["live"] > 0
        assert row["sim"] > 0
        assert row["error_pct"] == pytest.approx((row["sim"] - row["live"]) / row["live"] * 100)


def test_too_few_samples_warns_and_keeps_the_prior(caplog: pytest.LogCaptureFixture) -> None:
    traces = load_live([REFERENCE], [1])
    calls = traces.tables["model_calls"]
    traces.tables["model_calls"] = calls[calls["endpoint"] == "local"].head(2).reset_index(drop=True)
    traces.tables["tool_calls"] = traces.tables["tool_calls"].head(1)
    with caplog.at_level(logging.WARNING):
        overlay = fit_profile(traces)
    assert "rates" not in overlay["server"]  # no fitted rates: the scenario's (or roofline) stay
    assert "prior" in overlay["fit"]["server_decode"]["method"]
    assert "sample(s)" in overlay["fit"]["server_decode"]["warning"]
    assert any("kept the" in r.getMessage() for r in caplog.records)


@pytest.mark.slow
def test_a_simulated_run_is_refused_in_one_line(tmp_path: Path) -> None:
    sim_run = run_matrix(
        "this-machine-smollm2",
        archs=[Architecture.LO],
        concurrency=[1],
        limit=1,
        out_dir=tmp_path / "sim",
    )
    with pytest.raises(AgbenchError) as info:
        calibrate([sim_run], tmp_path / "p.toml")
    message = str(info.value)
    assert "\n" not in message
    assert "live" in message


def test_unfitted_levels_give_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(AgbenchError, match="concurrency 16"):
        calibrate([REFERENCE], tmp_path / "p.toml", concurrency=[16])


# ---- the simulator mechanisms calibration switches on (all off by default) ------------------


def _server(settings: ServerProfile, env: simpy.Environment, concurrency: int = 2) -> LocalServer:
    rates = ServerRates(prefill_tok_s=100.0, decode_step_s=0.01, decode_step_per_seq_s=0.01)
    return LocalServer(env, settings, rates, concurrency)


def _run_one(
    env: simpy.Environment, server: LocalServer, conv: str, prompt: int, out: int, at: float
) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    def proc() -> Any:
        yield env.timeout(at)
        req = server.submit(conv, None, 0, prompt, out)
        yield req.done
        seen.update(req=req, ttft=(req.t_first or 0.0) - req.t_arrive)

    env.process(proc())
    return seen


def test_a_full_unified_pool_purges_idle_caches_before_failing() -> None:
    # Without the host-memory prompt cache (which would save and clear the idle slot first).
    outcomes = {}
    for purge in (False, True):
        env = simpy.Environment()
        settings = ServerProfile(
            n_ctx=1000,
            n_parallel=2,
            kv_unified=True,
            idle_cache_holds_kv=True,
            purge_idle_on_full=purge,
            prompt_cache_mib=0.0,
            cache_idle_slots=False,
        )
        server = _server(settings, env)
        _run_one(env, server, "a", 500, 20, 0.0)  # done long before b: its cache stays idle
        b = _run_one(env, server, "b", 450, 100, 30.0)  # 520 idle + 550 > 1000 cells
        env.run()
        outcomes[purge] = (b["req"].error_class, server.idle_purges)
    assert outcomes[False][0] == "context_limit"  # the idle cache made the pool overflow
    assert outcomes[True] == ("", 1)  # llama.cpp purges the idle slot instead


def test_iterations_do_not_slow_a_prompt_already_in_its_batch() -> None:
    ttft = {}
    for mode in ("shared", "iterations"):
        env = simpy.Environment()
        server = _server(ServerProfile(n_ctx=4096, n_parallel=2, prefill_scheduling=mode), env)
        first = _run_one(env, server, "a", 200, 5, 0.0)
        _run_one(env, server, "b", 200, 5, 0.5)  # arrives while a's prompt is being processed
        env.run()
        ttft[mode] = first["ttft"]
    alone = 200 / 100.0
    assert ttft["iterations"] == pytest.approx(alone, rel=1e-6)
    assert ttft["shared"] > alone * 1.2


def test_the_cloud_standin_contends_like_a_local_server() -> None:
    from agbench.sim import load_scenario, replay_workload

    workload = replay_workload(REFERENCE.parent / "trajectories.jsonl")
    per_call: dict[tuple[bool, int], float] = {}
    for standin in (False, True):
        profile = load_scenario("this-machine-smollm2").profile
        profile.cloud.standin_local = standin
        for c in (1, 8):
            result = simulate(profile, "CO", c, 0, workload)
            calls = [r for r in result.records if isinstance(r, ModelCall)]
            assert calls
            assert all(r.endpoint == "cloud" for r in calls)
            per_call[(standin, c)] = sum(r.total_s for r in calls) / len(calls)
    # an API does not slow down with our load; a second llama-server on the same cores does
    assert per_call[(False, 8)] == pytest.approx(per_call[(False, 1)], rel=0.05)
    assert per_call[(True, 8)] > 2 * per_call[(True, 1)]


DEV_T2 = ROOT / "calibration" / "reference" / "dev-t2"


@pytest.mark.skipif(not (DEV_T2 / "run" / "run.json").is_file(), reason="dev-t2 is not in this checkout")
def test_an_interval_draw_lays_its_cpu_speeds_over_the_server_as_well_as_its_rates(tmp_path: Path) -> None:
    server = refit_server_profile(DEV_T2 / "server_profile.toml", tmp_path / "server_profile.toml")
    profile = calibrate([DEV_T2 / "run"], tmp_path / "p.toml", concurrency=[1], server_profile=server)

    def suite(overlay: dict[str, Any] | None) -> float:
        sim = simulate_pair(DEV_T2 / "run", profile, server=overlay).sim
        return next(
            c.suite_wall_s for c in sim.configurations if (c.architecture.value, c.concurrency) == ("HCL", 2)
        )

    nominal = suite(None)
    assert suite({"rates": {}}) == nominal  # nothing laid over: the point run
    crowded = Profile.load(profile).server.crowded_decode_speed
    slower = suite({"rates": {}, "crowded_decode_speed": [s / 2 for s in crowded]})
    assert slower > nominal  # two servers' threads on two cores: HCL's clashes take longer


@pytest.mark.skipif(not (DEV_T2 / "run" / "run.json").is_file(), reason="dev-t2 is not in this checkout")
def test_a_simulated_pair_keeps_the_simulated_calls_the_summaries_were_made_from(tmp_path: Path) -> None:
    server = refit_server_profile(DEV_T2 / "server_profile.toml", tmp_path / "server_profile.toml")
    profile = calibrate([DEV_T2 / "run"], tmp_path / "p.toml", concurrency=[1], server_profile=server)
    pair = simulate_pair(DEV_T2 / "run", profile)
    calls = pair.sim_tables["model_calls"]
    live = RunStore.open(DEV_T2 / "run").tables()["model_calls"]
    # the same calls as live, one simulated twin each (bench/call_overlap.py matches them)
    assert len(calls) == len(live)
    for entry in pair.sim.configurations:
        mine = calls[
            (calls["architecture"] == entry.architecture.value) & (calls["concurrency"] == entry.concurrency)
        ]
        assert entry.model_calls == len(mine)


def test_the_simulation_of_a_live_run_starts_its_tasks_in_the_recorded_order(
    profile: Path, tmp_path: Path
) -> None:
    """Validation replays the order run.json recorded, not one recomputed from the seed: a
    run recorded under another selection rule (or from a trajectory file holding more tasks
    than it ran) is simulated as it ran."""
    import shutil

    run = shutil.copytree(REFERENCE, tmp_path / "run")
    meta = json.loads((run / "run.json").read_text())
    recorded = list(reversed(meta["task_order"]))  # no seed gives this order: the run's own
    meta["task_order"] = recorded
    (run / "run.json").write_text(json.dumps(meta, indent=2))
    tables = simulate_pair(run, profile).sim_tables["task_runs"]
    for (_, concurrency), group in tables.groupby(["architecture", "concurrency"]):
        started = list(group.sort_values(["t_start", "task"])["task"])
        # one agent starts each task when the last ends; C agents start the first C at once
        assert started[concurrency:] == recorded[concurrency:]
        assert set(started[:concurrency]) == set(recorded[:concurrency])


def test_a_repeated_run_is_simulated_repeat_by_repeat(profile: Path, tmp_path: Path) -> None:
    """``--repeat N`` runs every task N times and every attempt counts: its simulation runs the
    recorded order N times over (attempts 1..N) and counts every one, as the live summary does
    (a run recorded once per task, given two attempts each, stands in for one)."""
    import shutil

    import pandas as pd

    run = shutil.copytree(REFERENCE, tmp_path / "run")
    meta = json.loads((run / "run.json").read_text())
    meta["options"]["repeat"] = 2
    (run / "run.json").write_text(json.dumps(meta, indent=2))
    path = run / "traces" / "task_runs.parquet"
    runs = pd.read_parquet(path)
    pd.concat([runs, runs.assign(attempt=runs["attempt"] + 1)]).to_parquet(path)
    pair = simulate_pair(run, profile)
    attempts = pair.sim_tables["task_runs"].groupby(["architecture", "concurrency", "task"])["attempt"]
    assert set(attempts.apply(sorted).map(tuple)) == {(1, 2)}
    for live, sim in zip(pair.live.configurations, pair.sim.configurations, strict=True):
        assert live.tasks == sim.tasks == 2 * len(meta["task_order"])
