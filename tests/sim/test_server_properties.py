"""Properties of the simulated server and agents, checked with hypothesis."""

from __future__ import annotations

import simpy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agbench.sim.engine import simulate
from agbench.sim.entities.cpu import ProcessorSharingCPU
from agbench.sim.entities.local_server import LocalRequest, LocalServer
from agbench.sim.profiles import DeviceProfile, Profile, ServerProfile, ServerRates
from agbench.sim.sweep import result_fingerprint
from agbench.sim.workloads.replay import replay_workload
from agbench.trajectory import ToolStep, Trajectory, TrajectorySet, Turn

RATES = ServerRates(
    prefill_tok_s=1000.0, decode_step_s=0.02, decode_step_per_seq_s=0.005, decode_step_per_kv_token_s=1e-7
)
FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

requests = st.lists(
    st.tuples(
        st.floats(0, 20),  # arrival time
        st.integers(1, 1500),  # prompt tokens
        st.integers(1, 400),  # output tokens asked
        st.integers(0, 3),  # conversation
    ),
    min_size=1,
    max_size=12,
)


def run_requests(
    reqs: list[tuple[float, int, int, int]], server_settings: ServerProfile, cpu_only: bool = False
) -> tuple[LocalServer, list[LocalRequest], list[float]]:
    env = simpy.Environment()
    cpu = ProcessorSharingCPU(env, 2) if cpu_only else None
    kv_seen: list[float] = []
    server = LocalServer(
        env,
        server_settings,
        RATES,
        4,
        cpu=cpu,
        sample_hook=lambda s: kv_seen.append(s.kv_in_use()),
        sample_interval_s=0,
    )
    done: list[LocalRequest] = []

    def client(t: float, prompt: int, out: int, conv: int):  # type: ignore[no-untyped-def]
        yield env.timeout(t)
        req = server.submit(("c", conv), "sys", 50, prompt, out)
        yield req.done
        done.append(req)

    for t, prompt, out, conv in reqs:
        env.process(client(t, prompt, out, conv))
    if cpu is not None:
        env.process(_tool_noise(env, cpu))
    env.run()
    return server, done, kv_seen


def _tool_noise(env: simpy.Environment, cpu: ProcessorSharingCPU):  # type: ignore[no-untyped-def]
    for _ in range(5):
        yield env.timeout(1.0)
        yield cpu.run(0.5, 1.0)


@FAST
@given(requests, st.booleans())
def test_tokens_out_equal_tokens_asked(reqs: list[tuple[float, int, int, int]], cpu_only: bool) -> None:
    big = ServerProfile(n_ctx=64 * 1024, n_parallel=4, kv_unified=False)
    _, done, _ = run_requests(reqs, big, cpu_only)
    assert len(done) == len(reqs)
    for req in done:
        assert req.error_class == ""
        assert req.completion_tokens == req.max_tokens
        assert req.finish_reason == "stop"
        assert req.t_first is not None
        assert req.t_done is not None
        assert req.t_arrive <= req.t_first <= req.t_done


@FAST
@given(requests, st.integers(1500, 6000), st.booleans())
def test_kv_in_use_never_exceeds_capacity(
    reqs: list[tuple[float, int, int, int]], pool: int, unified: bool
) -> None:
    server_settings = ServerProfile(n_ctx=pool, n_parallel=4, kv_unified=unified)
    server, done, seen = run_requests(reqs, server_settings)
    assert len(done) == len(reqs)  # every request ends: served, truncated or refused
    assert max(seen, default=0.0) <= pool + 1e-6
    assert server.kv_peak <= pool + 1e-6
    for req in done:
        assert req.completion_tokens <= req.max_tokens
        if req.error_class == "":
            assert req.prompt_tokens + req.completion_tokens <= server.slot_ctx


@FAST
@given(st.integers(1, 3000), st.integers(1, 500), st.integers(1, 4), st.integers(1, 8))
def test_adding_slots_never_slows_a_single_request(prompt: int, out: int, slots: int, extra: int) -> None:
    times = []
    for n in (slots, slots + extra):
        _, done, _ = run_requests([(0.0, prompt, out, 0)], ServerProfile(n_ctx=8192 * n, n_parallel=n))
        req = done[0]
        assert req.t_done is not None
        times.append(req.t_done - req.t_arrive)
    assert times[1] <= times[0] * (1 + 1e-9)


def _trajectory(turns: list[tuple[int, int, float, float]], think: float) -> Trajectory:
    return Trajectory(
        task="t1",
        architecture="LO",
        agent="lead",
        system_prompt_tokens=300,
        turns=[
            Turn(
                "local",
                added,
                out,
                think_s=think,
                tools=[ToolStep("tool", {}, wall_s=wall, cpu_s=wall * frac)],
            )
            for added, out, wall, frac in turns
        ],
        category="local_files",
        recorded_status="success",
    )


def _expected_alone(traj: Trajectory, rates: ServerRates, overhead: float) -> float:
    """The trace's own time with the server to itself: prompts (minus the cached prefix),
    outputs, tools and think gaps, one after another."""
    total, history, cached = overhead, traj.system_prompt_tokens, 0
    for turn in traj.turns:
        prompt = history + turn.prompt_tokens_added
        hit = min(cached, prompt - 1)
        total += turn.think_s + (prompt - hit) / rates.prefill_tok_s
        total += turn.output_tokens * rates.decode_step(1, 0) / rates.spec_tokens_per_step
        total += sum(t.wall_s for t in turn.tools)
        history = prompt + turn.output_tokens
        cached = history
    return total


@FAST
@given(
    st.lists(
        st.tuples(st.integers(1, 600), st.integers(1, 200), st.floats(0.0, 5.0), st.floats(0.0, 1.0)),
        min_size=1,
        max_size=10,
    ),
    st.floats(0.0, 2.0),
    st.booleans(),
)
def test_one_agent_without_contention_takes_the_trace_time(
    turns: list[tuple[int, int, float, float]], think: float, cpu_only: bool
) -> None:
    rates = ServerRates(
        prefill_tok_s=500.0, decode_step_s=0.03, decode_step_per_seq_s=0.01, spec_tokens_per_step=1.0
    )
    profile = Profile(
        device=DeviceProfile(cores=2, gpu=not cpu_only),
        server=ServerProfile(n_ctx=32768, n_parallel=1, rates=rates, threads=2),
    )
    profile.behaviour.harness_overhead_s = 1.0
    traj = _trajectory(turns, think)
    workload = replay_workload(TrajectorySet("synth", [traj]))
    result = simulate(profile, "LO", 1, 0, workload)
    (run,) = result.task_runs()
    assert run.status == "success"
    expected = _expected_alone(traj, rates, 1.0)
    assert abs(run.wall_s - expected) <= 0.01 * expected


def _paper_like(scale_tokens: float, tasks: int) -> tuple[Profile, TrajectorySet]:
    profile = Profile(
        device=DeviceProfile(cores=4, gpu=True),
        server=ServerProfile(n_ctx=1_000_000, n_parallel=4, kv_unified=True, rates=RATES),
    )
    trajs = []
    for i in range(tasks):
        turns = [
            Turn(
                "local", int(200 * scale_tokens), int(100 * scale_tokens), tools=[ToolStep("t", {}, 1.0, 0.5)]
            )
            for _ in range(5)
        ]
        trajs.append(
            Trajectory(f"t{i}", "LO", "lead", 500, turns, category="local_files", recorded_status="success")
        )
    return profile, TrajectorySet("synth", trajs)


def test_events_grow_with_steps_not_tokens() -> None:
    profile, small = _paper_like(1.0, 8)
    _, big_tokens = _paper_like(20.0, 8)
    _, twice_tasks = _paper_like(1.0, 16)
    base = simulate(profile, "LO", 4, 0, replay_workload(small)).events
    more_tokens = simulate(profile, "LO", 4, 0, replay_workload(big_tokens)).events
    more_tasks = simulate(profile, "LO", 4, 0, replay_workload(twice_tasks)).events
    assert more_tokens <= 1.3 * base  # 20x the tokens: about the same number of events
    assert 1.5 * base <= more_tasks <= 2.5 * base  # twice the steps: about twice the events


@FAST
@given(st.integers(0, 10_000))
def test_fixed_seed_gives_identical_output(seed: int) -> None:
    from agbench.sim.workloads.synthetic import SyntheticParams, synthetic_workload

    params = SyntheticParams()
    for cat in params.categories.values():
        cat.count = min(cat.count, 1)
    profile = Profile(
        device=DeviceProfile(cores=2, gpu=False),
        server=ServerProfile(n_ctx=65536, n_parallel=4, kv_unified=True, rates=RATES),
    )
    runs = [simulate(profile, "HCL", 3, seed, synthetic_workload(params, seed)) for _ in range(2)]
    assert result_fingerprint(runs[:1]) == result_fingerprint(runs[1:])
    assert [r.__dict__ for r in runs[0].records] == [r.__dict__ for r in runs[1].records]
