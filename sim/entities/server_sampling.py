"""The simulated ``server_samples`` rows: a hook the engine calls whenever the local server's
state should be recorded (periodically and at every change of batch)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import simpy

from agbench.attempt import Endpoint
from agbench.records import ServerSample

if TYPE_CHECKING:
    from agbench.sim.entities.local_server import LocalServer

SampleHook = Callable[..., None]  # (server, *, t=None, kv=None): a sample of the server now or at t


def sample_recorder(env: simpy.Environment, ids: dict[str, Any], records: list[Any]) -> SampleHook:
    """A sample hook that appends ``server_samples`` rows (identity ``ids``) to ``records``."""

    def sample(
        s: LocalServer, name: str = Endpoint.LOCAL.value, *, t: float | None = None, kv: float | None = None
    ) -> None:
        records.append(
            ServerSample(**ids, server=name, t=env.now if t is None else t, **s.sample_figures(kv))
        )

    return sample
