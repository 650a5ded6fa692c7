"""The server profile's measured step terms in the simulator: the decode step read from the
per-batch table, and the fixed part of a prompt batch that carries no decodes."""

from __future__ import annotations

import math

import pytest
import simpy

from agbench.sim.entities.local_server import LocalRequest, LocalServer
from agbench.sim.profiles import ServerProfile, ServerRates

TABLE = ServerRates(
    prefill_tok_s=500.0,
    decode_step_s=0.010,
    decode_step_per_seq_s=0.004,
    decode_step_per_kv_token_s=1e-5,
    decode_table_batch=[1.0, 2.0, 4.0],
    decode_table_step_s=[0.008, 0.016, 0.022],
    decode_table_per_kv_token_s=[7e-6, 9e-6, 1.2e-5],
)


def test_the_decode_step_reads_the_table_at_measured_sizes() -> None:
    assert TABLE.decode_step(1, 500) == pytest.approx(0.008 + 7e-6 * 500)
    assert TABLE.decode_step(2, 1000) == pytest.approx(0.016 + 9e-6 * 1000)
    assert TABLE.decode_step(4, 2000) == pytest.approx(0.022 + 1.2e-5 * 2000)


def test_between_sizes_the_step_follows_the_power_law_through_its_neighbours() -> None:
    # 0.016 * (0.022 / 0.016) ** (log(3/2) / log(4/2)): above the chord's 0.019, since the
    # measured step bends down with the batch
    expected = 0.016 * (0.022 / 0.016) ** (math.log(1.5) / math.log(2.0))
    assert TABLE.weights_step(3) == pytest.approx(expected)
    assert TABLE.weights_step(3) > 0.019
    # in log-log the point lies on the line through its neighbours
    slope_lo = math.log(TABLE.weights_step(3) / 0.016) / math.log(1.5)
    slope_hi = math.log(0.022 / TABLE.weights_step(3)) / math.log(4 / 3)
    assert slope_lo == pytest.approx(slope_hi)
    # the KV slope is read on the chord
    assert TABLE.kv_slope(3) == pytest.approx(1.05e-5)
    # past the table: the line's per-sequence cost, the last size's KV slope
    assert TABLE.decode_step(6, 0) == pytest.approx(0.022 + 2 * 0.004)
    assert TABLE.kv_slope(8) == pytest.approx(1.2e-5)


def test_without_a_table_the_step_is_the_line() -> None:
    line = ServerRates(decode_step_s=0.01, decode_step_per_seq_s=0.004, decode_step_per_kv_token_s=1e-5)
    assert line.decode_step(3, 1000) == pytest.approx(0.01 + 2 * 0.004 + 1e-5 * 1000)
    # a table whose lists disagree in length is not read (the line is)
    broken = ServerRates(decode_step_s=0.01, decode_table_batch=[1.0, 2.0], decode_table_step_s=[0.5])
    assert broken.weights_step(2) == pytest.approx(0.01 + broken.decode_step_per_seq_s)


def _run(
    rates: ServerRates, schedule: str, arrivals: list[tuple[float, int, int]], *, kv_unified: bool = False
) -> list[LocalRequest]:
    env = simpy.Environment()
    settings = ServerProfile(n_ctx=8192, n_parallel=2, kv_unified=kv_unified, prefill_scheduling=schedule)
    server = LocalServer(env, settings, rates, 2)
    done: list[LocalRequest] = []

    def client(t: float, prompt: int, out: int, conv: int):  # type: ignore[no-untyped-def]
        yield env.timeout(t)
        req = server.submit(("c", conv), "sys", 0, prompt, out)
        yield req.done
        done.append(req)

    for i, (t, prompt, out) in enumerate(arrivals):
        env.process(client(t, prompt, out, i))
    env.run()
    return sorted(done, key=lambda r: r.t_arrive)


def _ttft(r: LocalRequest) -> float:
    assert r.t_first is not None
    return r.t_first - r.t_arrive


def test_a_lone_prompt_pays_the_fixed_part_once_a_batch() -> None:
    """llama-server's loop ("iterations", every calibrated profile's schedule); the continuous
    "shared" approximation spreads it over ``n_batch`` tokens of rate instead."""
    schedule = "iterations"
    base = ServerRates(prefill_tok_s=500.0, decode_step_s=0.01)
    fixed = ServerRates(prefill_tok_s=500.0, decode_step_s=0.01, prefill_batch_s=0.05)
    for prompt in (100, 1200):  # one batch of n_batch = 512 tokens, then three
        batches = math.ceil(prompt / 512)
        plain, paid = (
            _ttft(_run(base, schedule, [(0.0, prompt, 4)])[0]),
            _ttft(_run(fixed, schedule, [(0.0, prompt, 4)])[0]),
        )
        assert paid - plain == pytest.approx(0.05 * batches, rel=1e-6), prompt


def test_a_prompt_beside_decodes_pays_the_fixed_part_only_in_a_pass_of_its_own() -> None:
    """The second prompt arrives while the first request decodes. On a unified pool its batch
    is one pass with that decode token, whose step already holds the call's fixed part; on a
    per-slot pool llama.cpp cuts the batch by slot (micro_batches.py), one token of the prompt
    rides with the decode and the rest is a prompt pass of its own, fixed part and all
    (measured: an 80-token prompt beside a decoding slot took one decode step more than alone)."""
    arrivals = [(0.0, 50, 400), (1.0, 100, 4)]
    base = ServerRates(prefill_tok_s=500.0, decode_step_s=0.01)
    fixed = ServerRates(prefill_tok_s=500.0, decode_step_s=0.01, prefill_batch_s=0.05)
    plain, paid = (_run(r, "iterations", arrivals, kv_unified=True) for r in (base, fixed))
    assert _ttft(paid[1]) == pytest.approx(_ttft(plain[1]), rel=1e-9)
    assert _ttft(paid[0]) == pytest.approx(_ttft(plain[0]) + 0.05, rel=1e-6)  # alone: paid
    plain, paid = (_run(r, "iterations", arrivals) for r in (base, fixed))
    assert _ttft(paid[1]) == pytest.approx(_ttft(plain[1]) + 0.05, rel=1e-6)


def test_prompt_time_counts_from_the_first_batch_the_prompt_is_in() -> None:
    """llama-server sets ``t_start_process_prompt`` when ``update_slots`` first takes the slot:
    a request that arrives while another's prompt batch runs waits for that batch outside its
    prompt time (its TTFT holds the wait), as the live traces record it."""
    rates = ServerRates(prefill_tok_s=500.0, decode_step_s=0.01)
    first, second = _run(rates, "iterations", [(0.0, 500, 2), (0.1, 100, 2)])
    assert first.t_first == pytest.approx(1.0)  # 500 tokens at 500 a second, alone
    # the second waited for that batch (0.9 s), then shared one with the first's decode token
    assert second.t_prompt == pytest.approx(1.0)
    figures = second.call_figures(second.t_arrive, second.t_done or 0.0)
    assert figures["prompt_ms"] == pytest.approx((_ttft(second) - 0.9) * 1000)
    # the continuous schedule starts every prompt at once: its time counts from the slot
    shared = _run(rates, "shared", [(0.0, 500, 2), (0.1, 100, 2)])[1]
    assert shared.t_prompt is None
    assert shared.call_figures(shared.t_arrive, 0.0)["prompt_ms"] == pytest.approx(_ttft(shared) * 1000)


def test_a_prompt_that_arrives_during_a_decode_step_waits_for_its_end() -> None:
    """llama-server's loop (``server_queue::start_loop``) reads new tasks only between two
    ``update_slots`` calls, so a prompt that arrives while a decode-only step runs starts in
    the batch after it, and its TTFT holds the rest of that step; on an idle server it starts
    at once."""
    rates = ServerRates(prefill_tok_s=500.0, decode_step_s=0.04)
    # the first request's prompt ends at 0.1 s; its decode steps then end at 0.14, 0.18, ...
    first, second = _run(rates, "iterations", [(0.0, 50, 40), (0.25, 50, 2)])
    assert first.t_first == pytest.approx(0.1)
    assert second.t_prompt == pytest.approx(0.26)  # the step 0.22-0.26 ran to its end
    # at a step's edge there is nothing to wait for
    _, on_edge = _run(rates, "iterations", [(0.0, 50, 40), (0.22, 50, 2)])
    assert on_edge.t_prompt == pytest.approx(0.22)
    (alone,) = _run(rates, "iterations", [(0.25, 50, 2)])
    assert alone.t_prompt == pytest.approx(0.25)
