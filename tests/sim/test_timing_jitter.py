"""Timing jitter: jittered runs draw harness and tool times around their means; nominal runs
stay exactly what they were."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from agbench.records import ModelCall, TaskRun, ToolCall
from agbench.sim import load_scenario, replay_workload, simulate
from agbench.sim.agents.timing_jitter import TimingJitter
from agbench.sim.profiles import Profile

TRAJECTORIES = Path(__file__).resolve().parents[2] / "calibration" / "reference" / "trajectories.jsonl"


def test_factors_have_mean_one_and_the_asked_spread() -> None:
    jitter = TimingJitter(1, "seed|task|LO|1")
    draws = np.array([jitter.factor(0.5) for _ in range(20_000)])
    assert abs(draws.mean() - 1.0) < 0.02
    assert abs(draws.std() / draws.mean() - 0.5) < 0.03
    assert draws.min() > 0
    assert TimingJitter(1, "seed|task|LO|1").factor(0.5) == TimingJitter(1, "seed|task|LO|1").factor(0.5)
    assert TimingJitter(2, "seed|task|LO|1").factor(0.5) != TimingJitter(1, "seed|task|LO|1").factor(0.5)


def test_the_nominal_stream_and_a_zero_spread_draw_nothing() -> None:
    assert {TimingJitter(None, "k").factor(0.5), TimingJitter(0, "k").factor(0.5)} == {1.0}
    assert TimingJitter(3, "k").factor(0.0) == 1.0


def _profile(spread: float) -> Profile:
    profile = load_scenario("this-machine-smollm2").profile
    profile.behaviour.turn_gap_s, profile.behaviour.turn_gap_cv = 0.03, spread
    profile.server.request_overhead_s, profile.server.request_overhead_cv = 0.01, spread
    tools = ("python", "run_command", "list_dir", "read_file", "edit_file", "web_search", "web_fetch")
    profile.tools.wall_s_by_tool = dict.fromkeys(tools, 0.05)
    profile.tools.wall_cv_by_tool = dict.fromkeys(tools, spread)
    return profile


def _timings(profile: Profile, jitter: int | None) -> tuple[list[float], list[float], list[int]]:
    """(tool walls, task walls, model-call tokens) of an LO C = 2 run of the replay set."""
    records = simulate(profile, "LO", 2, 0, replay_workload(TRAJECTORIES), jitter=jitter).records
    tools = [r.wall_s for r in records if isinstance(r, ToolCall)]
    tasks = [r.t_end - r.t_start for r in records if isinstance(r, TaskRun)]
    tokens = [r.prompt_tokens + r.completion_tokens for r in records if isinstance(r, ModelCall)]
    return tools, tasks, tokens


def test_a_jittered_run_varies_times_not_work_and_a_zero_spread_changes_nothing() -> None:
    nominal = _timings(_profile(0.5), None)
    assert _timings(_profile(0.5), None) == nominal  # deterministic
    assert _timings(_profile(0.0), 4) == _timings(_profile(0.0), None)  # nothing measured: no jitter
    drawn = _timings(_profile(0.5), 4)
    assert drawn == _timings(_profile(0.5), 4)  # a stream is the same simulation every time
    assert drawn != _timings(_profile(0.5), 5)
    tools, tasks, tokens = drawn
    assert sorted(tokens) == sorted(nominal[2])  # the same requests, only at other times
    assert len(tools) == len(nominal[0]) > 20
    assert np.ptp(nominal[0]) < 1e-9  # every synthesised step at its tool's mean
    spread = float(np.std(tools) / np.mean(tools))
    assert 0.3 < spread < 0.7
    assert math.isclose(np.mean(tools), 0.05, rel_tol=0.2)
    assert tasks != nominal[1]
