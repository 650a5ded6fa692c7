"""llama.cpp's cut of a batch into micro-batches on a per-slot pool (split_equal, sequential),
and what the simulated server pays for it."""

from __future__ import annotations

import pytest
import simpy

from agbench.sim.entities.local_server import LocalRequest, LocalServer
from agbench.sim.entities.micro_batches import BatchRow, split_batch_s, split_equal
from agbench.sim.profiles import ServerProfile, ServerRates

RATES = ServerRates(
    prefill_tok_s=500.0,
    prefill_batch_s=0.05,
    decode_table_batch=[1.0, 2.0, 3.0],
    decode_table_step_s=[0.020, 0.030, 0.044],
    decode_table_per_kv_token_s=[0.0, 0.0, 0.0],
)


def _cuts(rows: list[BatchRow], n_ubatch: int = 512) -> list[list[tuple[int, float]]]:
    return [[(row.slot, n) for row, n in micro] for micro in split_equal(rows, n_ubatch)]


def _decoding(slot: int) -> BatchRow:
    return BatchRow(slot, 1.0, 100.0, True)


def _prompt(slot: int, tokens: float) -> BatchRow:
    return BatchRow(slot, tokens, 0.0, False)


def test_a_micro_batch_takes_consecutive_slots_only() -> None:
    assert _cuts([_decoding(0), _decoding(1), _decoding(2)]) == [[(0, 1.0), (1, 1.0), (2, 1.0)]]
    assert _cuts([_decoding(0), _decoding(2)]) == [[(0, 1.0)], [(2, 1.0)]]
    assert _cuts([_decoding(0), _decoding(1), _decoding(3)]) == [[(0, 1.0), (1, 1.0)], [(3, 1.0)]]


def test_a_prompt_rides_one_token_with_the_run_it_continues_and_is_read_alone_after() -> None:
    # decoding 0 and 2, a prompt in slot 1: {0, 1} one token each, {2}, then the prompt's rest
    assert _cuts([_decoding(0), _decoding(2), _prompt(1, 300)]) == [
        [(0, 1.0), (1, 1.0)],
        [(2, 1.0)],
        [(1, 299.0)],
    ]
    # a prompt in a slot below the decoding one is not scanned back to: two passes
    assert _cuts([_decoding(1), _prompt(0, 300)]) == [[(1, 1.0)], [(0, 300.0)]]


def test_prompts_in_neighbouring_slots_share_passes_of_equal_tokens_up_to_n_ubatch() -> None:
    assert _cuts([_prompt(0, 200), _prompt(1, 300)]) == [[(0, 200.0), (1, 200.0)], [(1, 100.0)]]
    assert _cuts([_prompt(0, 400), _prompt(1, 400)]) == [[(0, 256.0), (1, 256.0)], [(0, 144.0), (1, 144.0)]]


def test_the_price_is_one_step_per_pass() -> None:
    decode, prompt = split_batch_s(RATES, [_decoding(0), _decoding(2)], 512)
    assert (decode, prompt) == pytest.approx((0.040, 0.0))
    decode, prompt = split_batch_s(RATES, [_decoding(0), _decoding(1)], 512)
    assert (decode, prompt) == pytest.approx((0.030, 0.0))
    decode, prompt = split_batch_s(RATES, [_decoding(1), _prompt(0, 100)], 512)
    assert (decode, prompt) == pytest.approx((0.020, 0.05 + 100 / 500))
    # two prompt passes (slots 1 and 3) pay the prompt batch's fixed part once, as one does
    two = split_batch_s(RATES, [_decoding(5), _prompt(1, 80), _prompt(3, 80)], 512)
    one = split_batch_s(RATES, [_decoding(5), _prompt(1, 80), _prompt(2, 80)], 512)
    assert two == pytest.approx(one)
    assert two == pytest.approx((0.020, 0.05 + 160 / 500))


def _decode_s_per_token(kv_unified: bool) -> float:
    """Three conversations decode on a three-slot server; the one in slot 1 stops after two
    tokens, so slots 0 and 2 decode on together: the seconds a token of slot 0's reply took
    while they did (its last 100 tokens)."""
    env = simpy.Environment()
    settings = ServerProfile(
        n_ctx=3 * 1024,
        n_parallel=3,
        kv_unified=kv_unified,
        prefill_scheduling="iterations",
        prompt_cache_mib=0,
    )
    server = LocalServer(env, settings, RATES, 3)
    times: dict[int, list[float]] = {}

    def client(conv: int, out: int):  # type: ignore[no-untyped-def]
        req: LocalRequest = server.submit(("c", conv), "sys", 0, 10, out)
        yield req.done
        times[conv] = [req.t_first or 0.0, req.t_done or 0.0]

    for conv, out in ((0, 300), (1, 2), (2, 300)):
        env.process(client(conv, out))
    env.run()
    first, done = times[0]
    return (done - first) / 299


def test_two_sequences_in_slots_0_and_2_decode_at_two_single_steps_on_a_per_slot_pool() -> None:
    # measured: 40.8 ms a step in slots 0 and 2, 29.6 in 0 and 1, 20.4 alone (bench/slot_split.py)
    assert _decode_s_per_token(kv_unified=False) == pytest.approx(0.040, rel=0.02)
    assert _decode_s_per_token(kv_unified=True) == pytest.approx(0.030, rel=0.02)
