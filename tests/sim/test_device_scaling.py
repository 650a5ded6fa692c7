"""Device scaling from physics: the explain table, its sources, the memory check, batch scaling.

``agbench sim --explain SCENARIO`` prints the local server's tokens/s by batch size computed
with the very rates the simulator integrates; every input must name its source in the
scenario file, and a KV pool that does not fit the device's memory is a one-line error.
"""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest
from click.testing import CliRunner

from agbench.cli import main as cli
from agbench.errors import AgbenchError
from agbench.sim import load_scenario, shipped_scenarios
from agbench.sim.predictors.explain import BATCHES, UNSOURCED, all_sources, contexts, render, scaling_rows
from agbench.sim.predictors.fitted import resolve_rates
from agbench.sim.predictors.roofline import Roofline
from agbench.sim.scenario import SCENARIO_DIR

ROOFLINE_SCENARIOS = ("paper-rtx5090", "paper-max395", "h200-27b")


@pytest.mark.parametrize("name", shipped_scenarios())
def test_explain_has_every_batch_and_context_and_a_source_for_every_input(name: str) -> None:
    sc = load_scenario(name)
    rows = scaling_rows(sc.profile)
    assert {(r.context, r.batch) for r in rows} == {(c, b) for c in contexts(sc.profile) for b in BATCHES}
    assert all(r.decode_per_seq > 0 and r.decode_total > 0 and r.prefill_total > 0 for r in rows)
    sources = all_sources(sc.profile)
    assert sources, [f"{s.table}.{s.field}" for s in sources if s.source == UNSOURCED]
    assert all(s.source != UNSOURCED and s.source.strip() for s in sources), [
        f"{s.table}.{s.field}" for s in sources if s.source == UNSOURCED
    ]
    text = render(sc)
    assert UNSOURCED not in text
    for b in BATCHES:
        assert any(line.split()[1:2] == [str(b)] for line in text.splitlines() if line[:8].strip())


def test_agbench_sim_explain_prints_the_table() -> None:
    result = CliRunner().invoke(cli, ["sim", "--explain", "paper-rtx5090"])
    assert result.exit_code == 0, result.output
    assert "decode tok/s per seq" in result.output
    assert "sources:" in result.output
    assert "https://github.com/" in result.output  # published figures are cited by address


def _oversized(tmp_path: Path, n_ctx: int) -> Path:
    path = tmp_path / "too-big.toml"
    path.write_text(
        f'[scenario]\nname = "too-big"\ninclude = ["{SCENARIO_DIR / "paper-rtx5090.toml"}"]\n'
        f"[server]\nn_ctx = {n_ctx}\n"
        f'[workload]\nparams = "{SCENARIO_DIR / "shared" / "paper-workload.toml"}"\n'
    )
    return path


def test_a_pool_that_does_not_fit_memory_is_a_one_line_error(tmp_path: Path) -> None:
    sc = load_scenario("paper-rtx5090")
    fits = Roofline(sc.profile.device, sc.profile.model, sc.profile.server).kv_capacity_tokens()
    assert load_scenario(_oversized(tmp_path, fits)).profile.server.n_ctx == fits
    with pytest.raises(AgbenchError, match="does not fit") as err:
        load_scenario(_oversized(tmp_path, fits + 1024))
    assert "\n" not in str(err.value)
    assert "32 GB" in str(err.value)
    result = CliRunner().invoke(cli, ["sim", "--explain", str(_oversized(tmp_path, 1_000_000))])
    assert result.exit_code != 0
    assert "does not fit" in result.output
    assert result.output.strip().count("\n") == 0


def test_weights_and_kv_bytes_come_from_the_model_shape() -> None:
    m = load_scenario("paper-rtx5090").profile.model
    assert m.kv_bytes_per_token == 2 * m.layers * m.kv_heads * m.head_dim * m.kv_bits / 8
    assert m.weight_bytes == pytest.approx(27e9 * 6.8 / 8)


@pytest.mark.parametrize("name", ROOFLINE_SCENARIOS)
def test_decode_per_sequence_falls_and_aggregate_rises_with_batch(name: str) -> None:
    sc = load_scenario(name)
    short = contexts(sc.profile)[0]
    rows = [r for r in scaling_rows(sc.profile) if r.context == short]
    per_seq = [r.decode_per_seq for r in rows]
    total = [r.decode_total for r in rows]
    assert all(a >= b for a, b in pairwise(per_seq))
    assert per_seq[-1] < per_seq[0]
    assert all(a < b for a, b in pairwise(total))
    assert all(r.bound == "bandwidth" for r in rows)  # a 27B model at 16 sequences: weights bound


def test_aggregate_stops_at_the_compute_bound() -> None:
    """With little compute the batch becomes compute bound and the aggregate stops rising."""
    p = load_scenario("paper-max395").profile
    p.device.compute_tflops = 10.0  # bandwidth bound alone, compute bound from a few sequences on
    rates = resolve_rates(p)
    cap = rates.spec_tokens_per_step / rates.decode_compute_per_seq_s
    rows = [r for r in scaling_rows(p) if r.context == contexts(p)[0]]
    assert rows[0].bound == "bandwidth"
    assert rows[-1].bound == "compute"
    assert all(r.decode_total <= cap * (1 + 1e-9) for r in rows)
    assert rows[-1].decode_total == pytest.approx(cap, rel=0.05)


def test_tools_share_the_device_cores() -> None:
    """Two concurrent CPU-bound tool calls on one core take twice as long as one alone."""
    import simpy

    from agbench.sim.entities.cpu import ProcessorSharingCPU

    env = simpy.Environment()
    cpu = ProcessorSharingCPU(env, 1)
    done = [cpu.run(10.0, 1.0), cpu.run(10.0, 1.0)]
    env.run(simpy.AllOf(env, done))
    assert env.now == pytest.approx(20.0)


def _tool_only_run(category: str, concurrency: int, parallel: dict[str, float]) -> list[float]:
    """Wall seconds of the tool call of each of ``concurrency`` CO tasks whose only step is one
    100 s tool computing 80 s (a cloud-led agent, so the device's cores do nothing else)."""
    from agbench.sim.engine import simulate
    from agbench.sim.profiles import DeviceProfile, Profile, ToolProfile
    from agbench.sim.workloads.replay import replay_workload
    from agbench.trajectory import ToolStep, Trajectory, TrajectorySet, Turn

    trajectories = [
        Trajectory(
            f"t{i}",
            "CO",
            "lead",
            100,
            [Turn("cloud", 100, 10, tools=[ToolStep("build", {}, 100.0, 80.0)]), Turn("cloud", 50, 10)],
            category=category,
            recorded_status="success",
        )
        for i in range(concurrency)
    ]
    profile = Profile(device=DeviceProfile(cores=8), tools=ToolProfile(parallel_share_by_category=parallel))
    result = simulate(profile, "CO", concurrency, 0, replay_workload(TrajectorySet("t", trajectories)))
    return [call.wall_s for call in result.table("tool_calls")]


def test_multithreaded_tools_of_concurrent_tasks_stretch_each_other() -> None:
    parallel = {"terminal": 1.0}
    (alone,) = _tool_only_run("terminal", 1, parallel)
    together = _tool_only_run("terminal", 4, parallel)
    assert alone == pytest.approx(100.0)
    # alone it keeps all 8 cores busy for 80 s; four at once get 2 cores each while they overlap
    assert max(together) == pytest.approx(100.0 + 3 * 80.0, rel=0.05)
    # single-threaded tools (an unnamed category) do not meet on 8 cores
    single = _tool_only_run("local_files", 4, parallel)
    assert max(single) == pytest.approx(100.0)


def test_explain_header_names_the_rate_terms_that_were_not_measured() -> None:
    """A measured scenario whose KV slope is an assumption says so in its first line; the
    referenced numbers are the source list's entries for exactly those terms."""
    text = render(load_scenario("this-machine-smollm2"))
    header, sources = text.splitlines()[0], text.split("sources:\n", 1)[1]
    assert "rates: measured, but for " in header
    refs = header.split("but for ", 1)[1].split(":", 1)[0].split()
    kv_ref = next(line.split()[0] for line in sources.splitlines() if ".decode_step_per_kv_token_s =" in line)
    assert kv_ref in refs
    prefill_ref = next(line.split()[0] for line in sources.splitlines() if ".prefill_tok_s =" in line)
    assert prefill_ref not in refs  # measured on this machine


def test_explain_header_of_a_roofline_scenario_says_roofline() -> None:
    assert "(rates: roofline)" in render(load_scenario("paper-rtx5090")).splitlines()[0]
