"""CPU scheduling groups (sim/entities/cpu.py) and the server's speed on the cores they leave it
(predictors/cpu_speed.py): the rules measured in docs/design.md, "CPU groups"."""

from __future__ import annotations

import math

import pytest
import simpy

from agbench.sim.engine import range_warnings
from agbench.sim.entities.cpu import HARNESS, ProcessorSharingCPU, water_fill
from agbench.sim.entities.local_server import LocalServer
from agbench.sim.predictors.cpu_speed import ServerSpeed, server_speed
from agbench.sim.profiles import Profile, ServerProfile, ServerRates

RATES = ServerRates(prefill_tok_s=1000.0, decode_step_s=0.02)


def test_water_fill_gives_equal_shares_capped_at_each_demand() -> None:
    assert water_fill({"a": 2.0, "b": 1.0}, 2.0) == {"a": 1.0, "b": 1.0}
    # a small group takes what it asks, the others share the rest equally
    assert water_fill({"a": 2.0, "b": 0.2, "c": 2.0}, 2.0) == pytest.approx({"a": 0.9, "b": 0.2, "c": 0.9})
    assert sum(water_fill({"a": 3.0, "b": 5.0, "c": 0.5}, 2.0).values()) == pytest.approx(2.0)


def _consumer(cpu: ProcessorSharingCPU, name: str) -> list[tuple[float, float]]:
    heard: list[tuple[float, float]] = []
    cpu.add_consumer(name, lambda allocated, displaced: heard.append((allocated, displaced)))
    return heard


def test_one_group_is_plain_proportional_sharing() -> None:
    env = simpy.Environment()
    cpu = ProcessorSharingCPU(env, 2)
    _consumer(cpu, "server")
    assert cpu.set_demand("server", 2.0) == 2.0
    cpu.run(10.0, 1.0, HARNESS)  # the harness's own work: the server's group
    assert cpu.allocation("server") == pytest.approx(4 / 3)
    assert cpu.displaced("server") == 0.0


def test_a_tool_in_a_session_of_its_own_takes_a_whole_core_from_a_two_thread_server() -> None:
    env = simpy.Environment()
    cpu = ProcessorSharingCPU(env, 2)
    heard = _consumer(cpu, "server")
    cpu.set_demand("server", 2.0)
    tool = cpu.run(1.0, 1.0, None)
    assert cpu.allocation("server") == pytest.approx(1.0)
    assert cpu.displaced("server") == pytest.approx(1.0)
    env.run(tool)
    assert env.now == pytest.approx(1.0)  # the tool ran on a core of its own, not on 2/3 of one
    assert heard[-1] == (2.0, 0.0)  # and the server got its cores back when it ended


def test_a_one_thread_server_keeps_its_core_beside_one_tool_but_not_beside_two() -> None:
    env = simpy.Environment()
    cpu = ProcessorSharingCPU(env, 2)
    _consumer(cpu, "server")
    cpu.set_demand("server", 1.0)
    cpu.run(5.0, 1.0, None)
    assert (cpu.allocation("server"), cpu.displaced("server")) == (1.0, 0.0)
    cpu.run(5.0, 1.0, None)  # three groups: two thirds of a core each
    assert cpu.allocation("server") == pytest.approx(2 / 3)
    assert cpu.displaced("server") == pytest.approx(1 / 3)


def _speed(allocated: float, displaced: float, **settings: object) -> float:
    """One factor for decode and prompt work (profiles without per-kind figures)."""
    speed = server_speed(ServerProfile(threads=2, **settings), allocated, displaced)  # type: ignore[arg-type]
    assert speed.decode == speed.prefill
    return speed.decode


def test_displaced_speed_is_linear_in_the_displaced_share_up_to_the_measured_point() -> None:
    measured = {"displaced_speed": 0.01, "displaced_thread_share": 0.5, "oversubscribed_efficiency": 1.0}
    assert _speed(2.0, 0.0, **measured) == 1.0
    assert _speed(1.0, 1.0, **measured) == pytest.approx(0.01)  # the measured point
    assert _speed(1.5, 0.5, **measured) == pytest.approx(1 - 0.5 * 0.99)  # a tool busy half the time
    assert _speed(0.5, 1.5, **measured) == pytest.approx(0.005)  # beyond it, down to 0
    assert _speed(0.0, 2.0, **measured) == 0.0


def test_unmeasured_displacement_slows_the_server_in_proportion() -> None:
    assert ServerProfile().displaced_speed is None
    assert _speed(1.0, 1.0, oversubscribed_efficiency=1.0) == pytest.approx(0.5)


def test_own_group_shortfall_keeps_the_oversubscription_form() -> None:
    share = 4 / 3 / 2
    assert _speed(4 / 3, 0.0, displaced_speed=0.01, oversubscribed_efficiency=0.0) == pytest.approx(
        share * share
    )


#: A two-thread server measured beside a busy loop (share 2/3) and beside a twin (share 1/2).
CROWDED = {
    "crowded_share": [0.5, 2 / 3],
    "crowded_decode_speed": [0.1, 0.3],
    "crowded_prefill_speed": [0.4, 0.55],
}


def test_crowded_decode_and_prompt_work_read_their_own_measured_points() -> None:
    profile = ServerProfile(threads=2, oversubscribed_efficiency=0.0, **CROWDED)  # type: ignore[arg-type]
    twin = server_speed(profile, 1.0, 0.0)  # two servers of two threads on two cores
    assert (twin.decode, twin.prefill) == pytest.approx((0.1, 0.4))
    busy = server_speed(profile, 4 / 3, 0.0)
    assert (busy.decode, busy.prefill) == pytest.approx((0.3, 0.55))
    # between the busy point and the full share, linear up to (1, 1)
    assert server_speed(profile, 5 / 3, 0.0).decode == pytest.approx(0.3 + 0.7 * (5 / 6 - 2 / 3) / (1 / 3))
    assert server_speed(profile, 2.0, 0.0) == ServerSpeed(1.0, 1.0)
    # below the lowest point, on the power law through it and (1, 1)
    assert server_speed(profile, 0.5, 0.0).decode == pytest.approx(0.25 ** (math.log(0.1) / math.log(0.5)))
    assert server_speed(profile, 0.0, 0.0) == ServerSpeed(0.0, 0.0)
    # a table whose lists disagree in length is not read: the one-factor form is
    broken = ServerProfile(
        threads=2, oversubscribed_efficiency=0.0, crowded_share=[0.5], crowded_decode_speed=[]
    )
    assert server_speed(broken, 1.0, 0.0) == ServerSpeed(0.25, 0.25)


def test_displacement_slows_decode_and_prompt_work_by_their_own_measured_speeds() -> None:
    profile = ServerProfile(
        threads=2, displaced_speed=0.015, displaced_decode_speed=0.005, displaced_prefill_speed=0.05
    )
    speed = server_speed(profile, 1.0, 1.0)
    assert (speed.decode, speed.prefill) == pytest.approx((0.005, 0.05))


def test_a_mixed_batch_slows_by_the_time_weighted_harmonic_mean() -> None:
    speed = ServerSpeed(decode=0.1, prefill=0.5)
    # 10 ms of decode step at 0.1 (100 ms) and 40 ms of prompt tokens at 0.5 (80 ms)
    assert speed.of_batch(0.01, 0.04) == pytest.approx(0.05 / 0.18)
    assert speed.of_batch(0.0, 0.04) == pytest.approx(0.5)
    assert speed.of_batch(0.01, 0.0) == pytest.approx(0.1)


def _decode_alone_or_beside_a_twin(twin: bool) -> float:
    """Seconds a 1-token prompt takes to decode 50 tokens on a two-thread server on two cores,
    alone or while a second such server (the cloud stand-in) decodes as long."""
    env = simpy.Environment()
    cpu = ProcessorSharingCPU(env, 2)
    profile = ServerProfile(threads=2, prefill_scheduling="iterations", **CROWDED)  # type: ignore[arg-type]
    servers = [LocalServer(env, profile, RATES, 1, cpu=cpu, cpu_consumer=f"server-{i}") for i in range(2)]
    reqs = [servers[0].submit(("a", 0), "sys", 0, 1, 50)]
    if twin:
        reqs.append(servers[1].submit(("b", 0), "sys", 0, 1, 50))
    env.run(reqs[0].done)
    return env.now


def test_two_servers_decoding_together_each_run_at_the_twin_point() -> None:
    alone, together = _decode_alone_or_beside_a_twin(False), _decode_alone_or_beside_a_twin(True)
    assert alone == pytest.approx(1 / 1000 + 50 * 0.02, rel=1e-6)
    # the one-token prompt at the prompt speed, each decode step at the decode speed
    assert together == pytest.approx(1 / 1000 / 0.4 + 50 * 0.02 / 0.1, rel=1e-6)


#: ...with the prompt speed measured at two batch sizes too (a short batch slows more).
BY_TOKENS = {
    **CROWDED,
    "crowded_prefill_tokens": [64.0, 512.0],
    "crowded_prefill_speed_by_tokens": [[0.2, 0.4], [0.4, 0.6]],
}


def test_crowded_prompt_speed_reads_the_batch_size_in_log_tokens_held_beyond_the_ends() -> None:
    profile = ServerProfile(threads=2, **BY_TOKENS)  # type: ignore[arg-type]
    twin = server_speed(profile, 1.0, 0.0)
    assert twin.prefill_tokens == (64.0, 512.0)
    assert twin.prefill_at(64) == pytest.approx(0.2)
    assert twin.prefill_at(512) == pytest.approx(0.4)
    assert twin.prefill_at(181.019) == pytest.approx(0.3, rel=1e-4)  # the geometric middle
    assert (twin.prefill_at(1), twin.prefill_at(4096)) == pytest.approx((0.2, 0.4))
    # each column is read at the share like the one-column table: halfway to the busy point
    mid = server_speed(profile, 7 / 6, 0.0)
    assert mid.prefill_by_tokens == pytest.approx((0.3, 0.5))
    # a prompt batch of 64 tokens slows by its column; a decode step by the decode speed
    assert twin.of_batch(0.0, 0.04, 64) == pytest.approx(0.2)
    assert twin.of_batch(0.01, 0.0, 1) == pytest.approx(0.1)
    # displacement scales every column by the prompt work's displaced factor (here half the
    # threads crowded to the twin point and a quarter displaced: 1 - 0.25 / 0.5 x 0.95)
    displaced = ServerProfile(threads=2, displaced_speed=0.02, displaced_prefill_speed=0.05, **BY_TOKENS)  # type: ignore[arg-type]
    assert server_speed(displaced, 0.5, 0.5).prefill_by_tokens == pytest.approx((0.2 * 0.525, 0.4 * 0.525))
    # a table with one row short is not read: the one-column table is
    short = ServerProfile(threads=2, **{**BY_TOKENS, "crowded_prefill_speed_by_tokens": [[0.2, 0.4]]})  # type: ignore[arg-type]
    assert server_speed(short, 1.0, 0.0) == ServerSpeed(0.1, 0.4)


def _prompt_s(prompt_tokens: int, twin: bool) -> float:
    """Seconds a fresh prompt takes on a two-thread server on two cores, alone or while a
    twin decodes beside it."""
    env = simpy.Environment()
    cpu = ProcessorSharingCPU(env, 2)
    profile = ServerProfile(threads=2, prefill_scheduling="iterations", **BY_TOKENS)  # type: ignore[arg-type]
    servers = [LocalServer(env, profile, RATES, 1, cpu=cpu, cpu_consumer=f"server-{i}") for i in range(2)]
    other = servers[1].submit(("b", 0), "sys", 0, 1, 100_000) if twin else None
    req = servers[0].submit(("a", 0), "sys", 0, prompt_tokens, 1)
    env.run(req.done)
    assert other is None or not other.done.triggered
    return env.now


def test_a_short_prompt_beside_a_twin_is_read_at_its_batch_sizes_speed() -> None:
    for tokens, speed in ((64, 0.2), (512, 0.4)):  # one batch each (n_batch 512)
        prompt_alone = _prompt_s(tokens, twin=False) - 0.02  # its answer's token: one decode step
        assert prompt_alone == pytest.approx(tokens / 1000)
        assert _prompt_s(tokens, twin=True) == pytest.approx(prompt_alone / speed + 0.02 / 0.1, rel=1e-6)


def _warnings_beside_a_twin(server: ServerProfile) -> list[str]:
    """engine.range_warnings after a two-thread server decoded beside a twin on two cores
    (each thread on half a core), calibrated from a server profile."""
    env = simpy.Environment()
    cpu = ProcessorSharingCPU(env, 2)
    servers = [LocalServer(env, server, RATES, 1, cpu=cpu, cpu_consumer=f"server-{i}") for i in range(2)]
    reqs = [s.submit((name, 0), "sys", 0, 1, 20) for s, name in zip(servers, "ab", strict=True)]
    env.run(reqs[0].done & reqs[1].done)
    assert servers[0].lowest_thread_share == pytest.approx(0.5)
    fit = {"server_profile": {"ranges": {"decode_batch": [1, 4]}}}
    return range_warnings(Profile(server=server, fit=fit), servers[0])


def test_a_thread_share_below_the_measured_crowded_points_is_flagged() -> None:
    kw = {"threads": 2, "prefill_scheduling": "iterations"}
    # measured beside a twin (0.5): inside the table, nothing to say
    assert _warnings_beside_a_twin(ServerProfile(**kw, **CROWDED)) == []  # type: ignore[arg-type]
    # measured beside a busy loop only (2/3): 0.5 is read on the power law below it
    busy = {"crowded_share": [2 / 3], "crowded_decode_speed": [0.3], "crowded_prefill_speed": [0.55]}
    (text,) = _warnings_beside_a_twin(ServerProfile(**kw, **busy))  # type: ignore[arg-type]
    assert text.startswith("thread_share fell to 0.50")
    assert "measured 0.67-0.67" in text
    # not measured at all: the one-factor form, an assumption
    (text,) = _warnings_beside_a_twin(ServerProfile(**kw))  # type: ignore[arg-type]
    assert "measured no crowded speed" in text
