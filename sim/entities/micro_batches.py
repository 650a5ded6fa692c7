"""How llama.cpp cuts one batch into micro-batches on a per-slot KV pool, and what they cost.

Why a module of its own: the cut is llama.cpp's batch allocator, not the server loop's
(batch_loop.py) nor the pool's. With ``--kv-unified`` off every slot's cells are a stream of
their own, and ``llama_kv_cache::init_batch`` (src/llama-kv-cache.cpp) splits each batch with
``llama_batch_allocr::split_equal(n_ubatch, sequential = true)`` (src/llama-batch.cpp):

* a micro-batch takes the first unused token's sequence, then, scanning the batch in order,
  each sequence whose id is the last one's plus one (ids 0, 1, 2 together; 0 and 2 not), so
  the streams it touches are one contiguous range;
* it takes the same number of tokens from each of them (as many rounds as the shortest has
  left, at most ``n_ubatch`` tokens in all);
* the rest of the batch is cut again the same way until nothing is left.

Each micro-batch is one pass of the model's graph over the weights. So two sequences decoding
in slots 0 and 2 cost two one-sequence steps where slots 0 and 1 cost one two-sequence step,
and a prompt beside decoding sequences is read in a micro-batch of its own after one token of
it rides with them. Measured on the development model, one thread, eight slots of 1,024 cells
(``python bench/slot_split.py``): sequences decoding in slots 0 and 2 took 38.4 ms a step, in
0 and 1 28.0 ms, one alone 20.0 ms; 0, 2, 4, 6 78.8 ms (four one-sequence steps: 80.0); on a
unified pool 0 and 2 took what 0 and 1 took.
A unified pool (one stream) is cut by ``split_simple``, the batch in order, ``n_ubatch``
tokens at a time, which the schedules' one-batch cost already is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from agbench.sim.entities.local_request import LocalRequest
from agbench.sim.profiles import ServerRates

EPS = 1e-9


@dataclass(frozen=True)
class BatchRow:
    """One sequence's part of a batch: its slot (the stream and sequence id), its tokens in the
    batch (1 for a decoding sequence), and the cells its attention reads (a decoding
    sequence's cells held; a prompt's context at the middle of its tokens here)."""

    slot: int
    tokens: float
    context: float
    decoding: bool


def split_equal(rows: Sequence[BatchRow], n_ubatch: int) -> list[list[tuple[BatchRow, float]]]:
    """The micro-batches of a batch whose rows are in llama-server's order (decoding sequences
    in slot order, then prompts in slot order): each a list of (row, its tokens taken)."""
    left = [row.tokens for row in rows]
    order = [i for i, row in enumerate(rows) if row.tokens > 0]
    out: list[list[tuple[BatchRow, float]]] = []
    while order:
        chosen: list[int] = []
        for i in order:
            if not chosen or rows[i].slot == rows[chosen[-1]].slot + 1:
                chosen.append(i)
        rounds = min(min(left[i] for i in chosen), float(max(1, n_ubatch // len(chosen))))
        out.append([(rows[i], rounds) for i in chosen])
        for i in chosen:
            left[i] -= rounds
        order = [i for i in order if left[i] > EPS]
    return out


def split_batch_s(rates: ServerRates, rows: Sequence[BatchRow], n_ubatch: int) -> tuple[float, float]:
    """(decode part, prompt part), nominal seconds, of one batch on a per-slot pool.

    A micro-batch that carries a decoding sequence costs the decode step of its width (the
    profile's step at that many sequences over their cells). Micro-batches of prompt tokens
    alone cost their tokens at the prompt rate of their mean context, and the batch's prompt
    work the fixed part of a prompt batch once, however many passes it takes: measured
    (``python bench/slot_split.py``), a prompt beside a decoding slot took what it takes alone
    plus one decode step, and two prompts read as two passes 16 ms (2.5 %) more than as one,
    where a profile's fitted fixed part is 0-155 ms (an intercept, not a pass's overhead)."""
    decode = prompt = 0.0
    prompt_pass = False
    for micro in split_equal(rows, n_ubatch):
        if any(row.decoding for row, _ in micro):
            decode += rates.decode_step(len(micro), sum(row.context for row, _ in micro))
            continue
        tokens = sum(n for _, n in micro)
        context = sum(row.context * n for row, n in micro) / tokens
        prompt += tokens / rates.prefill_rate(context)
        prompt_pass = True
    return decode, prompt + (rates.prefill_batch_s if prompt_pass else 0.0)


def batch_rows(decoding: Sequence[LocalRequest], prompts: Mapping[LocalRequest, float]) -> list[BatchRow]:
    """The rows of a batch in llama-server's order (``update_slots`` adds every decoding
    slot's token first, then prompt tokens, each in slot order): ``prompts`` maps a prefilling
    request to its tokens in the batch."""
    rows = [BatchRow(_slot(r), 1.0, r.held, True) for r in decoding]
    rows.sort(key=lambda row: row.slot)
    tail = [BatchRow(_slot(r), n, r.cached + r.prefilled + n / 2.0, False) for r, n in prompts.items()]
    tail.sort(key=lambda row: row.slot)
    return rows + tail


def decode_step_s(rates: ServerRates, decoding: Sequence[LocalRequest], n_ubatch: int) -> float:
    """Nominal seconds of one decode step of ``decoding`` on a per-slot pool: one step per run
    of consecutive slots."""
    return split_batch_s(rates, batch_rows(decoding, {}), n_ubatch)[0]


def _slot(r: LocalRequest) -> int:
    return r.slot.index if r.slot is not None else 0


__all__ = ["BatchRow", "batch_rows", "decode_step_s", "split_batch_s", "split_equal"]
