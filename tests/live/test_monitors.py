"""Server and resource samplers: parsing, and sampling a real llama-server under load."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from agbench.attempt import RunScope
from agbench.config import Architecture, Configuration
from agbench.live.monitors import PlacementSampler, ResourceSampler, ServerSampler, parse_prometheus
from agbench.live.monitors.server_sampler import slot_cells, slot_state
from agbench.live.providers import ChatClient
from agbench.live.providers.chat_result import ChatResult
from agbench.live.providers.mock import FakeOpenAIServer, FakeResponse
from agbench.live.serving import ManagedServer
from agbench.records import ResourceSample, ServerSample

VLLM_METRICS = """\
# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="qwen",engine="0"} 3.0
vllm:num_requests_waiting{model_name="qwen",engine="0"} 2.0
vllm:kv_cache_usage_perc{model_name="qwen",engine="0"} 0.25
vllm:prompt_tokens_total{model_name="qwen",engine="0"} 1200.0
vllm:generation_tokens_total{model_name="qwen",engine="0"} 300.0
vllm:prefix_cache_hits_total{model_name="qwen",engine="0"} 800.0
"""


def test_prometheus_parsing_sums_label_sets() -> None:
    metrics = parse_prometheus(VLLM_METRICS + 'vllm:num_requests_running{engine="1"} 1 1700000000\n')
    assert metrics["vllm:num_requests_running"] == 4.0
    assert metrics["vllm:kv_cache_usage_perc"] == 0.25
    assert parse_prometheus("# only comments\n\ngarbage line here\n") == {}


def test_vllm_metrics_fill_a_sample() -> None:
    async def go() -> ServerSample:
        async with FakeOpenAIServer([FakeResponse(body=VLLM_METRICS)]) as fake:
            sampler = ServerSampler(fake.url + "/v1", lambda s: None, kv_total=4000, server="local")
            try:
                sample: ServerSample = await asyncio.to_thread(sampler.sample_once)
            finally:
                sampler.stop()
            assert fake.requests
            assert len(fake.requests) == 1
            return sample

    sample = asyncio.run(go())
    assert (sample.requests_processing, sample.requests_waiting) == (3, 2)
    assert (sample.kv_used, sample.kv_total) == (1000, 4000)
    assert sample.prompt_tokens_cached_total == 800
    assert sample.generated_tokens_total == 300


def _llamacpp_metrics(processing: int) -> str:
    return (
        "# TYPE llamacpp:requests_processing gauge\n"
        f"llamacpp:requests_processing {processing}\n"
        "llamacpp:requests_deferred 0\n"
        "llamacpp:tokens_predicted_total 42\n"
    )


def test_idle_llamacpp_server_is_not_asked_for_slots_again() -> None:
    """/slots is asked once to learn the pool, then only while a slot is processing: an idle
    server's busy slots and cells in use are 0 whatever /slots would say."""
    slots = (
        '[{"id": 0, "n_ctx": 2048, "is_processing": true, "n_prompt_tokens": 70}, {"id": 1, "n_ctx": 2048}]'
    )
    script = [
        FakeResponse(body=_llamacpp_metrics(0)),
        FakeResponse(body=slots),  # the first sample learns the pool
        FakeResponse(body=_llamacpp_metrics(0)),  # idle: no /slots
        FakeResponse(body=_llamacpp_metrics(1)),
        FakeResponse(body=slots),  # busy: /slots again
    ]

    async def go() -> tuple[list[ServerSample], int]:
        async with FakeOpenAIServer(script) as fake:
            sampler = ServerSampler(fake.url + "/v1", lambda s: None, unified_kv=True)
            try:
                got = [await asyncio.to_thread(sampler.sample_once) for _ in range(3)]
            finally:
                sampler.stop()
            return got, len(fake.requests)

    (first, idle, busy), asked = asyncio.run(go())
    assert asked == 5
    assert (first.slots_total, first.kv_total, first.kv_used) == (2, 2048, 70)
    assert (idle.slots_busy, idle.slots_total, idle.kv_used, idle.kv_total) == (0, 2, 0, 2048)
    assert (busy.slots_busy, busy.kv_used, busy.requests_processing) == (1, 70, 1)


def test_slot_state_counts_busy_slots_tokens() -> None:
    slots = [
        {
            "id": 0,
            "n_ctx": 512,
            "is_processing": True,
            "n_prompt_tokens": 100,
            "next_token": [{"n_decoded": 20}],
        },
        {"id": 1, "n_ctx": 512, "is_processing": False, "n_prompt_tokens": 300},
    ]
    assert slot_state(slots) == (1, 2, 120, 1024)
    assert slot_state({"error": "x"}) == (0, 0, 0, 0)


def test_a_slot_whose_prompt_count_grows_with_its_output_is_not_counted_twice() -> None:
    """Read from xllamacpp 2026.10's llama-server: 43 prompt tokens, 58 decoded, and
    n_prompt_tokens 101 (the slot's token list); an older build's 43 + 58 is summed."""
    newer = {
        "is_processing": True,
        "n_prompt_tokens": 101,
        "n_prompt_tokens_processed": 43,
        "n_prompt_tokens_cache": 0,
        "next_token": [{"n_decoded": 58}],
    }
    assert slot_cells(newer) == 101
    # while its prompt is read, or right after, the count is the prompt's: add what was decoded
    reading = {**newer, "n_prompt_tokens": 43, "next_token": [{"n_decoded": 1}]}
    assert slot_cells(reading) == 44
    cached = {**newer, "n_prompt_tokens": 130, "n_prompt_tokens_processed": 12, "n_prompt_tokens_cache": 100}
    assert slot_cells(cached) == 130
    older = {"is_processing": True, "n_prompt_tokens": 43, "next_token": {"n_decoded": 58}}
    assert slot_cells(older) == 101


def test_sampler_survives_an_unreachable_server() -> None:
    got: list[ServerSample] = []
    sampler = ServerSampler("http://127.0.0.1:9", got.append, interval_s=0.05)
    sampler.start()
    deadline = time.monotonic() + 5
    while sampler.errors < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    sampler.stop()
    assert sampler.errors >= 2
    assert got == []


def test_resource_sampler_produces_samples() -> None:
    got: list[ResourceSample] = []
    done = threading.Event()

    def write(sample: ResourceSample) -> None:
        got.append(sample)
        if len(got) >= 3:
            done.set()

    sampler = ResourceSampler(
        write, interval_s=0.05, scope=RunScope("r", Configuration("d", Architecture.LO, 1))
    )
    sampler.start()
    done.wait(10)
    sampler.stop()
    assert len(got) >= 3
    s = got[-1]
    assert s.run_id == "r"
    assert 0 <= s.cpu_percent <= 100
    assert 0 < s.mem_used_bytes < s.mem_total_bytes
    assert s.net_recv_bytes >= got[0].net_recv_bytes
    assert (s.gpu_util_percent is None) == (not sampler.has_gpu)


@pytest.mark.server
def test_server_samples_follow_real_load(server: ManagedServer) -> None:
    got: list[ServerSample] = []
    scope = RunScope("r", Configuration("d", Architecture.LO, 2))
    assert server.pid is not None
    placement = PlacementSampler([server.pid])
    sampler = ServerSampler(
        server.url, got.append, interval_s=0.1, scope=scope, placement=(placement, server.pid)
    )

    async def load() -> list[ChatResult]:
        async with ChatClient(server.url, "smollm2-135m") as client:
            prompt = [{"role": "user", "content": "Count slowly: " + "one two " * 40}]
            return await asyncio.gather(
                *[client.chat(prompt, max_tokens=120, extra_body={"ignore_eos": True}) for _ in range(2)]
            )

    placement.start()
    sampler.start()
    try:
        results = asyncio.run(load())
        time.sleep(0.3)  # one more sample after the load
    finally:
        sampler.stop()
        placement.stop()
    assert sampler.errors == 0
    assert len(got) >= 3
    assert all(s.slots_total == 2 and s.kv_total == 1024 for s in got)
    busy = [s for s in got if s.slots_busy > 0]
    assert busy, "no sample saw a busy slot"
    assert max(s.kv_used for s in busy) > 80
    # never more cells than the two requests' prompts and outputs: the output counted once
    # (this build's /slots n_prompt_tokens grows with it; slot_cells)
    assert all(r.completion_tokens == 120 for r in results)
    assert max(s.kv_used for s in busy) <= sum(r.prompt_tokens + r.completion_tokens for r in results)
    assert got[-1].generated_tokens_total >= 240
    assert got[-1].prompt_tokens_total >= got[0].prompt_tokens_total + 80
    assert got[-1].slots_busy == 0
    if placement.available:  # where the server's threads ran, a share of each sample's span
        shares = [s.threads_stacked for s in got if s.threads_stacked is not None]
        assert shares, "no sample read the placement"
        assert all(0.0 <= x <= 1.0 for x in shares), shares
    assert sampler.cpu_fraction < 1.0  # a sanity bound only; bench/monitor_cost.py measures it


def test_samplers_can_be_awaited_from_async_code() -> None:
    got: list[ResourceSample] = []

    async def go() -> None:
        sampler = ResourceSampler(got.append, interval_s=0.05)
        await sampler.start()
        await asyncio.sleep(0.2)
        await sampler.stop()

    asyncio.run(go())
    assert got
