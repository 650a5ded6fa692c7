"""Which running server each configuration of a sweep finds, and what the last one left in it.

A live sweep restarts a managed llama-server only when its settings change
(live/runner/endpoints.py), so a sweep's configurations are not independent: the architectures
of one concurrency level share the local server and the cloud stand-in, and with the slot
count fixed (``--local-parallel N``, a scenario's ``n_parallel > 0``) every level shares the
local server. Each configuration starts from the slots, prompt cache and cells the previous one
on the same server left (sim/entities/server_state.py): on a kept per-slot server every first
turn from C = 2 on found its prompt cached live, and simulating each configuration on a fresh
server put the held-out suite wall 36.6 % high (docs/design.md, "A server the sweep keeps").

Two places follow the rule. Validation replays a recorded run (calibration/server_lifetimes.py
gives each configuration's servers from run.json). ``agbench sim`` predicts what a sweep with
the scenario's settings would record: :func:`sweep_order` puts its configurations in the live
runner's order (level by level, the architectures in their order within a level) and
:func:`servers_used` names the settings the runner would start each server with. Both walk
their configurations with one :class:`KeptServers`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agbench.config import Architecture
from agbench.sim.engine import LOCAL_SERVER, STANDIN_SERVER
from agbench.sim.entities.server_state import ServerState
from agbench.sim.profiles import Profile


class KeptServers:
    """What each server left at the end of the last configuration that used it, under the
    settings it ran with. A configuration whose server has the same settings finds it running
    (the runner kept it); other settings mean the runner restarted it (nothing carried)."""

    def __init__(self) -> None:
        self._kept: dict[str, tuple[object, ServerState]] = {}

    def carried(self, servers: Mapping[str, object]) -> dict[str, ServerState]:
        """By server name, the state a configuration using ``servers`` (name -> settings, compared
        by equality) starts from. Settings of None are a server of unknown identity: never kept."""
        return {
            name: state
            for name, (settings, state) in self._kept.items()
            if settings is not None and servers.get(name) == settings
        }

    def keep(self, servers: Mapping[str, object], states: Mapping[str, ServerState]) -> None:
        """What a configuration using ``servers`` left on each of them."""
        self._kept.update((name, (servers.get(name), state)) for name, state in states.items())

    def clear(self) -> None:
        """Every server restarted (a resumed sweep starts its servers again)."""
        self._kept.clear()


def servers_used(profile: Profile, architecture: Architecture | str, concurrency: int) -> dict[str, object]:
    """By server name, the settings a live sweep would start each simulated server with for this
    configuration: those that change with the level (the local server's slots and pool, the
    stand-in's one slot per task); the rest is the scenario's, the same at every level."""
    arch = Architecture(architecture)
    used: dict[str, object] = {}
    if arch.uses_local:
        server = profile.server
        used[LOCAL_SERVER] = (server.slots(concurrency), server.pool_tokens(concurrency))
    if arch.uses_cloud and profile.cloud.standin_local:
        used[STANDIN_SERVER] = max(1, concurrency)
    return used


def sweep_order(configurations: Sequence[tuple[str, int]]) -> list[int]:
    """Indices of ``configurations`` ((architecture, concurrency) pairs) in the order a live
    sweep runs them: each level in the order its first configuration is listed, and within a
    level the architectures in the order they are first listed (live/runner/sweep.py)."""
    levels: dict[int, int] = {}
    archs: dict[str, int] = {}
    for arch, conc in configurations:
        levels.setdefault(conc, len(levels))
        archs.setdefault(arch, len(archs))
    return sorted(
        range(len(configurations)), key=lambda i: (levels[configurations[i][1]], archs[configurations[i][0]])
    )


def server_chains(servers: Sequence[Mapping[str, object]]) -> list[list[int]]:
    """The configurations (given in sweep order, by the servers each uses) split into chains
    that share no running server, each in sweep order: a chain runs one configuration after
    another, and different chains may run at once (in other processes, on Ray)."""
    parent = list(range(len(servers)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    running: dict[str, tuple[Any, int]] = {}  # server -> (its settings, the last configuration on it)
    for i, used in enumerate(servers):
        for name, settings in used.items():
            current = running.get(name)
            if current is not None and current[0] == settings:
                parent[root(i)] = root(current[1])
            running[name] = (settings, i)
    chains: dict[int, list[int]] = {}
    for i in range(len(servers)):
        chains.setdefault(root(i), []).append(i)
    return list(chains.values())


__all__ = ["KeptServers", "server_chains", "servers_used", "sweep_order"]
