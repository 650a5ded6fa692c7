"""Which batch sizes ``agbench profile-server`` decodes at: the quick grid keeps batch 2 (where a
CPU's batched kernels start) and 4 (how the step bends), since the simulator reads every other
size between measured ones (bench/decode_batch_table.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agbench.config import ServerSettings
from agbench.live.load.profile import ProfileOptions, Profiler


def sizes(parallel: int, quick: bool) -> list[int]:
    options = ProfileOptions(out=Path("."), server=ServerSettings(n_parallel=parallel), quick=quick)
    return Profiler(options, client=None, counter=None).batch_sizes()  # type: ignore[arg-type]


def test_the_quick_grid_measures_batch_two_and_four_below_the_slots() -> None:
    assert sizes(8, quick=True) == [1, 2, 4, 8]
    assert sizes(6, quick=True) == [1, 2, 4, 6]
    assert sizes(3, quick=True) == [1, 2, 3]
    assert sizes(2, quick=True) == [1, 2]
    assert sizes(1, quick=True) == [1]


def test_the_full_grid_measures_every_usual_size_up_to_the_slots() -> None:
    assert sizes(8, quick=False) == [1, 2, 3, 4, 6, 8]
    assert sizes(10, quick=False) == [1, 2, 3, 4, 6, 8, 10]


def profiler(ctx: int, parallel: int, quick: bool = False, unified: bool = True) -> Profiler:
    settings = ServerSettings(n_ctx=ctx, n_parallel=parallel, kv_unified=unified)
    return Profiler(ProfileOptions(out=Path("."), server=settings, quick=quick), client=None, counter=None)  # type: ignore[arg-type]


def test_the_full_grid_decodes_each_batch_size_where_it_fills_the_pool() -> None:
    p = profiler(4096, 8)
    # b sequences of that context (and their 48 decoded tokens) hold 85 % of a unified pool
    for b in (1, 2, 4, 8):
        ctx = p.full_pool_context(b)
        assert 0.8 * 4096 <= b * (ctx + 48) <= 0.85 * 4096
    # per-slot pools: a slot's own cells bound every sequence, whatever the batch
    per_slot = profiler(4096, 4, unified=False)
    assert per_slot.full_pool_context(1) == per_slot.full_pool_context(4) == int(0.85 * 1024) - 56


def test_the_full_grid_reads_a_follow_up_on_a_long_prefix_where_a_slot_holds_it() -> None:
    assert profiler(4096, 8).cached_prefixes() == [1024, 2048]
    assert profiler(8192, 8).cached_prefixes() == [1024, 2048]
    assert profiler(2048, 8).cached_prefixes() == [1024]  # 1,024 is as long as half a slot allows
    assert profiler(4096, 8, quick=True).cached_prefixes() == [256]


def test_the_full_grid_holds_backgrounds_to_three_quarters_of_the_pool_three_times_each() -> None:
    """A sweep at eight agents fills the pool; the masked-cell term is read up to it."""
    full, quick = profiler(4096, 8), profiler(4096, 8, quick=True)
    assert sorted({(k, held) for k, held, _ in full.masked_grid()}) == [
        (1, 1024),
        (1, 2048),
        (1, 3072),
        (2, 1228),
    ]
    assert {t for _, _, t in full.masked_grid()} == {64, 384}
    assert (full.masked_repeats(), quick.masked_repeats()) == (3, 2)
    assert quick.masked_grid() == [(1, 1638, 64), (1, 1638, 384)]
    # a small pool keeps only the points that leave the probe room: three quarters of 2,048
    # cells with a 64-token probe, not with a 384-token one
    small = profiler(2048, 8).masked_grid()
    assert (1, 1536, 64) in small
    assert (1, 1536, 384) not in small
    assert profiler(4096, 1).masked_grid() == []  # one slot: no background beside the probe


def asked_slots(unified: bool) -> list[tuple[int, int | None]]:
    """(max_tokens, id_slot) of every request the decode probe sends at batch 3 on a four-slot
    server (the requests recorded, not sent)."""
    p = profiler(4096, 4, unified=unified)
    calls: list[tuple[int, int | None]] = []

    async def prompt(tokens: int) -> list[dict[str, Any]]:
        return [{"role": "user", "content": "x" * tokens}]

    async def send(messages: list[dict[str, Any]], max_tokens: int, slot: int | None = None) -> None:
        calls.append((max_tokens, slot))

    p._prompt = prompt  # type: ignore[method-assign]
    p._send = send  # type: ignore[method-assign,assignment]
    p._keep = lambda *args: None  # type: ignore[method-assign]
    asyncio.run(p.decode(batches=[3], contexts=[64]))
    return calls


def test_the_decode_probe_pins_a_per_slot_servers_sequences_to_the_first_slots() -> None:
    """llama.cpp cuts a per-slot pool's batch where the slots skip one (sim/entities/
    micro_batches.py), so the probe's b sequences go to slots 0 .. b - 1 there (one pass, the
    step the simulator prices each run of consecutive slots at); a unified pool is not cut."""
    per_slot, unified = asked_slots(False), asked_slots(True)
    reps = len(per_slot) // 6
    assert reps >= 1
    assert per_slot == [(1, 0), (1, 1), (1, 2), (48, 0), (48, 1), (48, 2)] * reps
    assert {slot for _, slot in unified} == {None}


def test_the_full_grid_repeats_each_save_point_five_times_so_its_median_holds() -> None:
    """The save figure is a difference of two short waits, one of which can be several times
    the other: the full grid sends each (held size, condition) point five times whatever
    ``--repeats``; the quick grid keeps ``--repeats``."""
    full, quick = profiler(4096, 4), profiler(4096, 4, quick=True)
    assert (full.save_repeats(), quick.save_repeats()) == (5, 2)
    kept: list[dict[str, Any]] = []

    async def prompt(tokens: int) -> list[dict[str, Any]]:
        return [{"role": "user", "content": "x" * tokens}]

    async def send(messages: list[dict[str, Any]], max_tokens: int, slot: int | None = None) -> None:
        return None

    full._prompt = prompt  # type: ignore[method-assign]
    full._send = send  # type: ignore[method-assign,assignment]
    full._keep = lambda probe, params, result: kept.append(params)  # type: ignore[method-assign]
    asyncio.run(full.save())
    points = {(p["held"], p["saved"]) for p in kept}
    assert points == {(256, False), (256, True), (1024, False), (1024, True)}
    assert len(kept) == 5 * len(points)
