"""Where a unified pool's cells sit (find_slot's placement) and the range a prompt batch spans."""

from __future__ import annotations

import random
from collections.abc import Generator
from typing import Any

import pytest
import simpy

from agbench.sim.entities.cpu import ProcessorSharingCPU
from agbench.sim.entities.kv_cells import KV_TILE, CellMap
from agbench.sim.entities.local_request import LocalRequest
from agbench.sim.entities.local_server import LocalServer
from agbench.sim.profiles import ServerProfile, ServerRates


def test_a_sequence_cleared_below_another_leaves_a_hole_the_range_keeps() -> None:
    cells = CellMap(4096)
    cells.resize(0, 1500)
    cells.resize(1, 1300)
    assert cells.top() == 2800
    cells.resize(0, 0)  # the lower slot saved to the prompt cache and cleared
    assert (cells.used, cells.top()) == (1300, 2800)  # 1,500 empty cells below the top
    cells.resize(1, 0)
    assert cells.top() == 0


def test_the_search_starts_from_cell_0_when_the_head_is_far_above_the_cells_in_use() -> None:
    cells = CellMap(4096)
    cells.resize(0, 1500)
    cells.resize(1, 1300)
    cells.resize(0, 0)
    # head 2800 > used 1,300 + 2 x 100: the next ubatch fills the hole from the bottom
    cells.resize(2, 100)
    assert cells.runs[2] == [(0, 100)]
    assert cells.top() == 2800
    # head 100 is not beyond used + 2n: the next one continues from the head
    cells.resize(2, 150)
    assert cells.runs[2] == [(0, 150)]


def test_sequences_that_decode_together_are_interleaved_cell_by_cell() -> None:
    cells = CellMap(4096)
    cells.sync({0: 300, 1: 200}, {})  # two prompts, placed whole in slot order
    assert cells.runs == {0: [(0, 300)], 1: [(300, 500)]}
    # both decode 100 tokens: each decode batch gives slot 0 then slot 1 the next free cell
    cells.sync({0: 400, 1: 300}, {0: 100, 1: 100})
    assert cells.runs[0][1:3] == [(500, 501), (502, 503)]
    assert cells.runs[1][1:3] == [(501, 502), (503, 504)]
    assert (cells.held(0), cells.held(1), cells.top()) == (400, 300, 700)
    # decode growth beyond what the slot holds now is placed as the slot's growth allows
    cells.sync({0: 410, 1: 300}, {0: 50})
    assert cells.held(0) == 410


def test_a_prompt_pays_for_every_tile_its_cells_share_with_others() -> None:
    contiguous = CellMap(4096)
    contiguous.sync({0: 300, 1: 500}, {})
    # 300 cells from cell 0 touch ceil(300 / 64) = 5 tiles, what a run of 300 needs
    assert contiguous.extra_context(0) == 0
    # slot 1's run starts inside slot 0's last tile: one tile more than 500 cells need
    # (cells 300-799: tiles 4-12, nine, where ceil(500 / 64) = 8)
    assert contiguous.extra_context(1) == KV_TILE
    mixed = CellMap(4096)
    mixed.sync({0: 64, 1: 64}, {})
    mixed.sync({0: 192, 1: 192}, {0: 128, 1: 128})  # 256 cells interleaved: 4 tiles, each shared
    # each holds 192 cells (3 tiles' worth) and touches its own first tile and the four shared
    assert mixed.extra_context(0) == KV_TILE * (5 - 3)
    assert mixed.extra_context(1) == KV_TILE * (5 - 3)


def test_placement_wraps_past_the_end_and_removal_takes_the_newest_cells() -> None:
    cells = CellMap(1000, ubatch=100)
    cells.resize(0, 100)  # [0, 100)
    cells.resize(1, 800)  # [100, 900)
    cells.resize(0, 0)
    # head 900 is not beyond used 800 + 2 x 100: forward to the end, then from cell 0
    cells.resize(2, 150)
    assert cells.runs[2] == [(900, 1000), (0, 50)]
    assert cells.free == [(50, 100)]
    cells.resize(2, 120)  # llama_memory_seq_rm drops the highest positions: the newest cells
    assert cells.runs[2] == [(900, 1000), (0, 20)]
    assert cells.free == [(20, 100)]
    assert (cells.used, cells.top()) == (920, 1000)


def test_a_full_pool_places_what_fits() -> None:
    cells = CellMap(100)
    cells.resize(0, 80)
    cells.resize(1, 50)
    assert (cells.held(1), cells.used, cells.free) == (20, 100, [])


RATES = ServerRates(prefill_tok_s=1000.0, decode_step_s=0.02, decode_step_per_seq_s=0.005)


def test_a_prompt_alone_at_two_agents_spans_the_cleared_slot_below_it() -> None:
    # a alone (cells from 0), then a's next turn and b's first together (b's cells above a's),
    # then b's next turn while a is idle: launching it saves and clears a's slot, and b's prompt
    # attends up to its own cells, above a's hole
    unified = ServerProfile(
        n_ctx=4096, n_parallel=2, kv_unified=True, idle_cache_holds_kv=True, prefill_scheduling="iterations"
    )
    env = simpy.Environment()
    server = LocalServer(env, unified, RATES, 2)
    seen: list[tuple[float, float]] = []

    def turns() -> Generator[simpy.Event, Any, None]:
        yield server.submit("a", None, 0, 1500, 1).done
        a2 = server.submit("a", None, 0, 1600, 1)
        b = server.submit("b", None, 0, 1300, 1)
        yield a2.done & b.done
        seen.append((server.kv_range(), server.kv_in_use()))
        yield server.submit("b", None, 0, 1400, 1).done
        seen.append((server.kv_range(), server.kv_in_use()))

    env.process(turns())
    env.run()
    (range_both, held_both), (range_b, held_b) = seen
    assert range_both == held_both == 1600 + 1300  # no hole while both hold their cells
    assert held_b == 1400  # a's slot was cleared when b's turn launched
    assert range_b >= 1600 + 1300  # b still sits above a's 1,600 empty cells


def _follow_up_prompt_ms(together: bool, cpu: bool) -> float:
    """Two agents each read a prompt and decode 150 tokens, at the same time or one after the
    other; then a's follow-up (200 new tokens) is read alone: its prompt time."""
    unified = ServerProfile(n_ctx=4096, n_parallel=2, kv_unified=True, prefill_scheduling="iterations")
    env = simpy.Environment()
    rates = ServerRates(
        prefill_tok_s=1000.0, decode_step_s=0.02, decode_step_per_seq_s=0.005, prefill_ctx_slowdown_per_k=0.4
    )
    server = LocalServer(env, unified, rates, 2, cpu=ProcessorSharingCPU(env, 2) if cpu else None)
    follow_up: list[LocalRequest] = []

    def turns() -> Generator[simpy.Event, Any, None]:
        a = server.submit("a", None, 0, 300, 150)
        if not together:
            yield a.done
        b = server.submit("b", None, 0, 300, 150)
        yield a.done & b.done
        r = server.submit("a", None, 0, 300 + 150 + 200, 1)
        follow_up.append(r)
        yield r.done

    env.process(turns())
    env.run()
    (r,) = follow_up
    return float(r.call_figures(0.0, env.now)["prompt_ms"])


def test_a_prompt_pays_its_context_rate_for_cells_interleaved_with_its_own() -> None:
    # decoding together, a's and b's replies interleave cell by cell, and a's follow-up attends
    # over every tile of that stretch (b's cells, and the holes b's cleared slot left there, at
    # a's context rate); decoded one after the other, each reply is a run of its own
    apart, together = _follow_up_prompt_ms(False, cpu=True), _follow_up_prompt_ms(True, cpu=True)
    assert together > apart
    # a GPU server (no CPU given) runs other attention kernels: the tile rule is not applied
    assert _follow_up_prompt_ms(True, cpu=False) == pytest.approx(
        _follow_up_prompt_ms(False, cpu=False), rel=0.02
    )


def test_each_owners_count_and_the_free_runs_account_for_every_cell() -> None:
    # the counts ``held`` answers are kept beside the runs (the server asks at every prompt
    # batch): after any sequence of growing, shrinking and a full pool they still agree
    # (``top`` read from the free runs, decode steps interleaving owners, included)
    rng = random.Random(7)
    cells = CellMap(2048, ubatch=256)
    for _ in range(2000):
        owner = rng.randrange(6)
        if rng.random() < 0.3:  # some owners decode together
            grow = {o: cells.held(o) + rng.randrange(1, 40) for o in rng.sample(range(6), 3)}
            cells.sync(grow, {o: n - cells.held(o) for o, n in grow.items()})
        else:
            cells.resize(owner, rng.choice((0, rng.randrange(1, 900))))
        for o in range(6):
            assert cells.held(o) == sum(end - start for start, end in cells.runs.get(o, ()))
        assert cells.used == sum(cells.held(o) for o in range(6))
        assert cells.used + sum(end - start for start, end in cells.free) == 2048
        assert cells.top() == max((end for runs in cells.runs.values() for _, end in runs), default=0)
