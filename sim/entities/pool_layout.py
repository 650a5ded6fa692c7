"""A unified pool's cell map (kv_cells.py) kept in step with the server's slots.

Why apart from the server: to place cells as llama-server does, the map must know which part
of a slot's growth since it last looked was decode tokens (placed one per decoding slot per
step, so sequences that decode at the same time interleave cell by cell) and which was prompt
(placed a ubatch at a time). That needs the request each slot served since then, the one that
finished and was replaced included: it still decoded its last tokens there. Only the map
itself is kept when a sweep keeps the server (server_state.py); the requests are not.
"""

from __future__ import annotations

from collections.abc import Sequence

from agbench.sim.entities.kv_cells import CellMap
from agbench.sim.entities.local_request import LocalRequest
from agbench.sim.schedulers.slot_policy import Slot


def _decode_cells(r: LocalRequest) -> int:
    """Cells a request's generated tokens hold (the last one sampled is not placed yet)."""
    return int(max(0.0, r.generated - 1.0))


class PoolLayout:
    """The cell map of one unified pool and, per slot, the request it last saw there."""

    def __init__(self, size: int, interleave: bool = True) -> None:
        self.cells = CellMap(size)
        # False (a GPU server, whose kernels the tile rule is not about): growth placed a ubatch
        # at a time and the map synced at prompt batches only, cheap at long contexts
        self.interleave = interleave
        self._seen: dict[int, tuple[LocalRequest, int]] = {}  # slot -> (request, its decode cells then)
        self._served: dict[int, LocalRequest] = {}  # slot -> the last request released from it

    def served(self, slot: Slot, req: LocalRequest) -> None:
        """``req`` left ``slot``: its last decode tokens are placed at the next sync."""
        self._served[slot.index] = req

    def sync(self, slots: Sequence[Slot], active: Sequence[LocalRequest]) -> int:
        """Place what each slot holds now; ``used_max_p1``, one past the highest cell in use."""
        running = {r.slot.index: r for r in active if r.slot is not None}
        cells: dict[int, int] = {}
        decoded: dict[int, int] = {}
        for slot in slots:
            r = running.get(slot.index)
            cells[slot.index] = int(r.held) if r is not None else slot.tokens
            r = r or self._served.get(slot.index)
            if r is not None and self.interleave:
                decoded[slot.index] = self._decoded_since(slot.index, r)
        self.cells.sync(cells, decoded)
        return self.cells.top()

    def extra_context(self, r: LocalRequest) -> int:
        """Cells beyond its own a prompt batch of ``r`` attends over (kv_cells.extra_context)."""
        return self.cells.extra_context(r.slot.index) if r.slot is not None else 0

    def _decoded_since(self, index: int, r: LocalRequest) -> int:
        """Decode cells slot ``index`` gained since the last sync: ``r``'s, and the rest of the
        request it served then when that was another."""
        last, last_cells = self._seen.get(index, (r, 0))
        now = _decode_cells(r)
        self._seen[index] = (r, now)
        if last is r:
            return now - last_cells
        return _decode_cells(last) - last_cells + now


__all__ = ["PoolLayout"]
