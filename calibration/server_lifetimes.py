"""Which configurations of a live sweep ran on the same server, in the order they ran.

A live sweep restarts a managed llama-server only when its settings change
(live/runner/endpoints.py): the local server's settings are recorded per concurrency level in
run.json (``local.servers``), the cloud stand-in's follow from the level (one slot per task), and a
``--local-url`` server is the same one throughout. A configuration on a server the previous one
left running starts from what that one left in it (sim/entities/server_state.py), so validation
simulates the configurations in this order and hands the state on. A resumed sweep started its
servers again: a configuration with an interrupted attempt ends every server's lifetime.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from agbench.config import Architecture
from agbench.run_meta import RunMeta
from agbench.sim.engine import LOCAL_SERVER, STANDIN_SERVER
from agbench.status import Status


@dataclass(frozen=True)
class ServerUse:
    """One configuration, and the identity of each server it used (equal identity: the same
    running server, unless a resume came between)."""

    architecture: str
    concurrency: int
    servers: dict[str, Any]
    interrupted: bool  # an attempt of it was cut by the sweep's stop: its servers ended there


def run_order(task_runs: pd.DataFrame, meta: RunMeta) -> list[ServerUse]:
    """The run's configurations in the order they started, with the servers each used."""
    local = meta.local
    servers = local.servers if local is not None else {}
    external = local is not None and not local.managed
    uses: list[tuple[float, ServerUse]] = []
    for (arch, conc), rows in task_runs.groupby(["architecture", "concurrency"]):
        architecture, level = Architecture(str(arch)), int(str(conc))
        used: dict[str, Any] = {}
        if architecture.uses_local:
            used[LOCAL_SERVER] = "external" if external else servers.get(str(level))
        if architecture.uses_cloud and meta.is_standin:
            used[STANDIN_SERVER] = level
        cut = bool((rows["status"] == Status.INTERRUPTED).any())
        uses.append((float(rows["t_start"].min()), ServerUse(architecture.value, level, used, cut)))
    return [use for _, use in sorted(uses, key=lambda item: item[0])]


__all__ = ["ServerUse", "run_order"]
