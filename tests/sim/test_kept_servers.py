"""A simulated sweep shares its servers between configurations as a live sweep with the same
settings would (sim/kept_servers.py, sim/sweep.py): the order, the chains, and what is carried."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from click.testing import CliRunner

from agbench.cli import main
from agbench.config import Architecture
from agbench.records import ModelCall
from agbench.sim import run_matrix
from agbench.sim.engine import LOCAL_SERVER, STANDIN_SERVER, SimResult
from agbench.sim.kept_servers import server_chains, servers_used, sweep_order
from agbench.sim.scenario import Scenario, load_scenario
from agbench.sim.sweep import chains_of, matrix_jobs, result_fingerprint, run_jobs

LO, CO, HLL = Architecture.LO, Architecture.CO, Architecture.HLL


def _with_slots(slots: int) -> Scenario:
    """The development machine's scenario with the slot count fixed (``--local-parallel``) and
    the cloud stand-in on: every level's server has the same settings."""
    sc = load_scenario("this-machine-smollm2")
    return dataclasses.replace(
        sc, profile=sc.profile.merged({"server": {"n_parallel": slots}, "cloud": {"standin_local": True}})
    )


def test_configurations_run_level_by_level_and_chain_through_the_servers_they_share() -> None:
    listed = [("LO", 1), ("LO", 2), ("CO", 1), ("CO", 2), ("HLL", 1), ("HLL", 2)]  # as matrix_jobs lists them
    order = sweep_order(listed)
    assert [listed[i] for i in order] == [("LO", 1), ("CO", 1), ("HLL", 1), ("LO", 2), ("CO", 2), ("HLL", 2)]

    per_level = load_scenario("this-machine-smollm2")
    per_level = dataclasses.replace(
        per_level, profile=per_level.profile.merged({"cloud": {"standin_local": True}})
    )
    used = [servers_used(per_level.profile, a, c) for a, c in (listed[i] for i in order)]
    assert used[0] == {LOCAL_SERVER: (1, per_level.profile.server.n_ctx)}
    assert used[1] == {STANDIN_SERVER: 1}
    # slots = C: a new local server and a new stand-in every level; one level's three share them
    assert server_chains(used) == [[0, 1, 2], [3, 4, 5]]
    # the slot count fixed: LO and HLL keep the local server through both levels, so one chain
    fixed = [servers_used(_with_slots(2).profile, a, c) for a, c in (listed[i] for i in order)]
    assert server_chains(fixed) == [[0, 1, 2, 3, 4, 5]]
    # other settings in between restart the server: the same settings again find a new one
    assert server_chains([{LOCAL_SERVER: "a"}, {LOCAL_SERVER: "b"}, {LOCAL_SERVER: "a"}]) == [[0], [1], [2]]


def _first_turns_cached(result: SimResult) -> list[int]:
    calls = sorted((r for r in result.records if isinstance(r, ModelCall)), key=lambda c: c.t_start)
    first: dict[str, int] = {}
    for call in calls:
        first.setdefault(call.task, call.cached_tokens)
    return sorted(first.values())


def test_a_level_on_the_kept_server_finds_the_last_levels_conversations_cached() -> None:
    """With the slots fixed, C = 2 runs on the server C = 1 left: each task's first prompt was
    that task's first prompt at C = 1, so the prompt cache holds all of it but the last token
    (llama.cpp evaluates one); on fresh servers the first two tasks find nothing cached."""
    sc = _with_slots(2)
    wl = sc.workload(limit=4)
    jobs = matrix_jobs(sc, wl, [LO], [1, 2], seed=0)
    kept = run_jobs(jobs)
    fresh = run_jobs(jobs, fresh_servers=True)
    assert result_fingerprint(kept[:1]) == result_fingerprint(fresh[:1])  # C = 1 starts fresh either way
    prompt = next(r for r in kept[1].records if isinstance(r, ModelCall)).prompt_tokens
    assert _first_turns_cached(kept[1]).count(prompt - 1) >= 2
    assert _first_turns_cached(fresh[1])[:2] == [0, 0]
    assert kept[1].suite_wall_s < fresh[1].suite_wall_s  # the prompts it did not read again


def test_chains_run_in_parallel_give_the_results_of_one_process() -> None:
    sc = load_scenario("this-machine-smollm2")
    wl = sc.workload(limit=4)
    jobs = matrix_jobs(sc, wl, [LO, HLL], [1, 2], seed=3)
    assert len(chains_of(jobs)) == 2  # slots = C: one chain a level
    assert result_fingerprint(run_jobs(jobs, workers=2)) == result_fingerprint(run_jobs(jobs, workers=1))


def test_agbench_sim_shares_servers_unless_told_to_start_them_fresh(tmp_path: Path) -> None:
    sc = _with_slots(2)
    walls = {}
    for fresh in (False, True):
        out = run_matrix(
            sc, archs=[LO], concurrency=[1, 2], out_dir=tmp_path / str(fresh), limit=4, fresh_servers=fresh
        )
        confs = json.loads((out / "summary.json").read_text())["configurations"]
        walls[fresh] = {c["concurrency"]: c["suite_wall_s"] for c in confs}
    assert walls[False][1] == walls[True][1]
    assert walls[False][2] < walls[True][2]


def test_fresh_servers_is_refused_where_no_matrix_is_simulated() -> None:
    result = CliRunner().invoke(
        main, ["sim", "--scenario", "this-machine-smollm2", "--rate", "1", "--fresh-servers"]
    )
    assert result.exit_code == 2
    assert "--fresh-servers apply to the architecture x concurrency matrix" in result.output
