"""CPU scheduling groups (sim/entities/cpu.py) and the server's speed when another group takes
its cores (entities/local_server.py): the rules measured in docs/design.md, "CPU groups"."""

from __future__ import annotations

import pytest
import simpy

from agbench.sim.entities.cpu import HARNESS, ProcessorSharingCPU, water_fill
from agbench.sim.entities.local_server import LocalServer
from agbench.sim.profiles import ServerProfile, ServerRates

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


def _server(**settings: object) -> LocalServer:
    profile = ServerProfile(threads=2, **settings)  # type: ignore[arg-type]
    return LocalServer(simpy.Environment(), profile, RATES, 1)


def test_displaced_speed_is_linear_in_the_displaced_share_up_to_the_measured_point() -> None:
    server = _server(displaced_speed=0.01, displaced_thread_share=0.5, oversubscribed_efficiency=1.0)
    assert server._speed_from(2.0, 0.0) == 1.0
    assert server._speed_from(1.0, 1.0) == pytest.approx(0.01)  # the measured point
    assert server._speed_from(1.5, 0.5) == pytest.approx(1 - 0.5 * 0.99)  # a tool busy half the time
    assert server._speed_from(0.5, 1.5) == pytest.approx(0.005)  # beyond it, down to 0
    assert server._speed_from(0.0, 2.0) == 0.0


def test_unmeasured_displacement_slows_the_server_in_proportion() -> None:
    server = _server(oversubscribed_efficiency=1.0)
    assert server.settings.displaced_speed is None
    assert server._speed_from(1.0, 1.0) == pytest.approx(0.5)


def test_own_group_shortfall_keeps_the_oversubscription_form() -> None:
    server = _server(displaced_speed=0.01, oversubscribed_efficiency=0.0)
    share = 4 / 3 / 2
    assert server._speed_from(4 / 3, 0.0) == pytest.approx(share * share)
