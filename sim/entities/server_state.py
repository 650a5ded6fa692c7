"""What a llama-server keeps from one configuration to the next, when a sweep keeps it running.

A live sweep restarts a managed server only when its settings change (live/runner/endpoints.py):
the architectures of one concurrency level share it, and with ``--local-parallel`` fixed (or
``--local-url``) every level does. What the server kept is still there when the next
configuration starts: each slot's cached conversation, the host-memory prompt cache
(``--cache-ram``) and, in a unified pool, where the idle slots' cells sit. Measured on a per-slot
pool (3 slots, 1,024 cells each; LO then HLL at C = 1, 2, 3 on one server): every first turn of
LO at C = 2 and 3 found its 480-token prompt cached (479 tokens, restored from the previous
level's conversation of the same task), where a fresh server reads all 480 (3.5 s here) — the
difference between a C = 2 suite of 25 s and one of 32 s.

Validation simulates a live run's configurations in the order they ran and hands each the state
its predecessor on the same server left (calibration/validation.py). The state is copied, so a
configuration never changes the one it started from. Times are moved before the next
configuration's start (into (-1, 0), never-used slots staying at -1), so the least recently used
slot is the same one it was.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from agbench.sim.entities.kv_cells import CellMap
from agbench.sim.entities.prompt_cache import PromptCache
from agbench.sim.schedulers.slot_policy import Slot

#: ``Slot.last_used`` of a slot no request has used (llama.cpp's ``t_last_used = -1``).
NEVER_USED = -1.0


@dataclass
class ServerState:
    """One server's slots, prompt cache and cell layout as a configuration left them."""

    slots: list[Slot]
    prompt_cache: PromptCache | None
    cells: CellMap | None

    @classmethod
    def left(cls, slots: list[Slot], prompt_cache: PromptCache | None, cells: CellMap | None) -> ServerState:
        """A copy of what a server holds at its configuration's end, slot times moved before
        the next start."""
        kept = copy.deepcopy(cls(slots, prompt_cache, cells))
        # by rank, so that a slot carried from an earlier configuration stays older than any
        # used in this one (their times are already below 0)
        used = sorted((s for s in kept.slots if s.last_used != NEVER_USED), key=lambda s: s.last_used)
        for rank, slot in enumerate(used, 1):
            slot.last_used = NEVER_USED + rank / (len(used) + 1)
        for slot in kept.slots:
            slot.busy = False
        return kept

    def copy(self) -> ServerState:
        return copy.deepcopy(self)


__all__ = ["ServerState"]
