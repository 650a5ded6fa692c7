"""Where a unified KV pool's cells sit, so a batch's attention range can be read.

A prompt batch in a unified pool attends over every cell up to the highest one in use, not
over the cells held: ``llama_kv_cache::get_n_kv`` returns ``min(size, max(n_pad,
GGML_PAD(used_max_p1, n_pad)))``, holes below the highest used cell included, and the mask that
hides them is built over that whole range. A slot cleared below another sequence's cells (llama-
server's ``--cache-idle-slots``, on by default, saves every idle slot when a task starts and, in
a unified pool, clears it) leaves such a hole, so an agent's prompt can pay for cells nobody holds. At one agent
there is no other slot to clear and the range is the cells held; from two agents on it is not.

The placement follows ``llama_kv_cache::find_slot``: a ubatch's cells are taken forward from
the stream's head (free cells only; a sequence's tokens need not be contiguous), wrapping at
the end, and the head moves past the last cell placed; when the head is beyond ``used + 2 *
n_tokens`` the search starts from cell 0 instead, to fill the cache from the bottom.
``llama_memory_seq_rm`` removes a sequence's highest positions, which are the cells it was given
last. The server syncs the map with what each slot holds when it prices a prompt batch, when
a request ends and before a slot is cleared (``sync``, through pool_layout.py): shrinking first, then each slot's prompt growth in slot order, a ubatch (``n_ubatch``,
512) at a time, then the decode tokens, one cell per decoding slot per step in slot order, as
llama-server's decode batches place them (``update_slots`` adds one token per decoding slot,
``find_slot`` gives the batch the next free cells in its order). So sequences that decode at
the same time end up interleaved cell by cell, as they are live.

**Why the interleaving matters: the CPU attention kernel skips masked cells only a whole tile
at a time.** ggml-cpu's tiled flash attention (``ggml_compute_forward_flash_attn_ext_tiled``,
ggml/src/ggml-cpu/ops.cpp; taken for a batch of at least ``GGML_FA_TILE_Q`` = 64 tokens) reads
the KV cells in tiles of ``GGML_FA_TILE_KV`` = 64 and skips a tile only when the mask hides all
of it from all 64 query rows of the tile; any other tile is computed whole. A prompt's
attention therefore costs one context cell per cell of every tile its own cells touch: a
sequence whose cells are contiguous touches ``ceil(held / 64)`` tiles, as in the profile's
prompt probes (one sequence alone) and its masked probe (the probe's cells above the parked
background); one interleaved with others touches more, and each extra tile costs 64 cells of
context (``extra_context``). Batches under 64 tokens take the per-row kernel, which skips each
masked cell on its own (``ggml_compute_forward_flash_attn_ext_f16_one_chunk``).
"""

from __future__ import annotations

import bisect

KV_TILE = 64  # GGML_FA_TILE_KV: the KV cells ggml-cpu's tiled flash attention reads at a time
Q_TILE = 64  # GGML_FA_TILE_Q: the batch rows of one tile; smaller batches take the per-row kernel


class CellMap:
    """The cells of one unified pool: per owner (a slot) the cell runs it holds, in the order it
    was given them; the free runs; the head."""

    def __init__(self, size: int, ubatch: int = 512) -> None:
        self.size = size
        self.ubatch = max(1, ubatch)
        self.head = 0
        self.used = 0
        self.runs: dict[int, list[tuple[int, int]]] = {}  # owner -> [start, end) runs, oldest first
        self.free: list[tuple[int, int]] = [(0, size)] if size > 0 else []  # sorted, disjoint
        # owner -> the cells its runs hold (kept with them: the server asks at every prompt batch)
        self.counts: dict[int, int] = {}

    def held(self, owner: int) -> int:
        return self.counts.get(owner, 0)

    def top(self) -> int:
        """``used_max_p1``: one past the highest cell in use (0 when none is): every cell not in
        a free run is in use, so it is where the last free run starts, if that run ends the pool."""
        if not self.used:
            return 0
        if self.free and self.free[-1][1] == self.size:
            return self.free[-1][0]
        return self.size

    def resize(self, owner: int, cells: int) -> None:
        """Make ``owner`` hold ``cells`` cells: remove its newest ones, or place more, a ubatch
        at a time (each placement applies the head's reset rule with its own size)."""
        have = self.held(owner)
        if cells < have:
            self._remove(owner, have - cells)
        while cells > have:
            n = min(self.ubatch, cells - have)
            if not self._place(owner, n):
                break  # the pool is full: what fits is placed
            have += n

    def sync(self, cells: dict[int, int], decoded: dict[int, int]) -> None:
        """Make every owner hold ``cells[owner]``: shrink first, then place each one's growth,
        its last ``decoded[owner]`` cells (decode tokens since the last sync) one per owner per
        step in owner order after the rest (prompt tokens) a ubatch at a time."""
        growing: list[int] = []
        for owner, want in cells.items():
            have = self.held(owner)
            if want < have:
                self.resize(owner, want)
            elif want > have:
                growing.append(owner)
        steps: dict[int, int] = {}
        for owner in growing:
            want, have = cells[owner], self.held(owner)
            step = min(max(0, decoded.get(owner, 0)), want - have)
            self.resize(owner, want - step)
            if step:
                steps[owner] = step
        if steps:
            self._place_steps(steps)

    def extra_context(self, owner: int) -> int:
        """The cells a prompt of ``owner`` attends over beyond its own, in the tiled kernel:
        64 for every tile its cells touch beyond the ``ceil(held / 64)`` a contiguous run needs."""
        held = self.held(owner)
        if not held:
            return 0
        tiles: set[int] = set()
        for start, end in self.runs.get(owner, []):
            tiles.update(range(start // KV_TILE, (end - 1) // KV_TILE + 1))
        return KV_TILE * max(0, len(tiles) - -(-held // KV_TILE))

    def _place_steps(self, steps: dict[int, int]) -> None:
        """Decode steps: each step a cell for every owner with steps left, in owner order, the
        cells taken forward from the head as ``find_slot`` takes them (the head's reset rule
        applied once, for the first step's size); a full pool places what fits."""
        order: list[int] = []
        left = dict(steps)
        while left:
            owners = sorted(left)
            order.extend(owners)
            for owner in owners:
                left[owner] -= 1
                if not left[owner]:
                    del left[owner]
        if self.head > self.used + 2 * len(steps):
            self.head = 0
        i, last = 0, self.head
        for start, end in self._search_order():
            if i >= len(order):
                break
            take = min(len(order) - i, end - start)
            self._take_free(start, start + take)
            for cell in range(start, start + take):
                owner = order[i]
                i += 1
                runs = self.runs.setdefault(owner, [])
                if runs and runs[-1][1] == cell:
                    runs[-1] = (runs[-1][0], cell + 1)
                else:
                    runs.append((cell, cell + 1))
                self.counts[owner] = self.counts.get(owner, 0) + 1
            self.used += take
            last = start + take
        self.head = last if last < self.size else 0

    def _search_order(self) -> list[tuple[int, int]]:
        """The free runs in ``find_slot``'s order: from the head to the end, then from cell 0."""
        ahead: list[tuple[int, int]] = []
        behind: list[tuple[int, int]] = []
        for start, end in self.free:
            if end <= self.head:
                behind.append((start, end))
            elif start < self.head:
                behind.append((start, self.head))
                ahead.append((self.head, end))
            else:
                ahead.append((start, end))
        return ahead + behind

    def _place(self, owner: int, n: int) -> bool:
        """``find_slot`` for ``n`` tokens of one sequence, non-contiguous; a full pool places
        what fits (the pool's own rules decide failures, not this map): False then."""
        if self.head > self.used + 2 * n:
            self.head = 0
        runs = self.runs.setdefault(owner, [])
        left = n
        last = self.head
        for start, end in self._search_order():
            if left <= 0:
                break
            take = min(left, end - start)
            self._take_free(start, start + take)
            if runs and runs[-1][1] == start:
                runs[-1] = (runs[-1][0], start + take)
            else:
                runs.append((start, start + take))
            self.used += take
            left -= take
            last = start + take
        self.head = last if last < self.size else 0
        if runs:
            self.counts[owner] = self.counts.get(owner, 0) + n - left
        else:
            self.runs.pop(owner, None)
        return left <= 0

    def _remove(self, owner: int, n: int) -> None:
        runs = self.runs.get(owner, [])
        while n > 0 and runs:
            start, end = runs[-1]
            take = min(n, end - start)
            runs[-1] = (start, end - take)
            if runs[-1][0] == runs[-1][1]:
                runs.pop()
            self._give_free(end - take, end)
            self.used -= take
            self.counts[owner] -= take
            n -= take
        if not runs:
            self.runs.pop(owner, None)
            self.counts.pop(owner, None)

    def _take_free(self, start: int, end: int) -> None:
        k = bisect.bisect_right(self.free, (start, self.size + 1)) - 1
        fs, fe = self.free[k]
        assert fs <= start, "placing a cell that is not free"
        assert end <= fe, "placing a cell that is not free"
        pieces = [(fs, start)] if fs < start else []
        pieces += [(end, fe)] if end < fe else []
        self.free[k : k + 1] = pieces

    def _give_free(self, start: int, end: int) -> None:
        k = bisect.bisect_left(self.free, (start, start))
        if k > 0 and self.free[k - 1][1] == start:
            k -= 1
            start = self.free[k][0]
            self.free.pop(k)
        if k < len(self.free) and self.free[k][0] == end:
            end = self.free[k][1]
            self.free.pop(k)
        self.free.insert(k, (start, end))


__all__ = ["KV_TILE", "Q_TILE", "CellMap"]
