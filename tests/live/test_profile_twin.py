"""``agbench profile-server``'s twin probe against two real llama-servers: the profiled server
decodes and reads prompts while a second one of the same settings decodes without a pause."""

from __future__ import annotations

import asyncio
import itertools
import time
from pathlib import Path
from typing import Any

import pytest

from agbench.config import ServerSettings
from agbench.live.load import twin_server
from agbench.live.load.profile import (
    DECODE_TOKENS,
    DISPLACED_CONTEXT,
    TWIN_BLOCKS,
    TWIN_DECODE_CALLS,
    TWIN_DECODE_S,
    TWIN_REPEATS,
    ProfileOptions,
    Profiler,
)
from agbench.live.load.twin_server import needs_twin
from agbench.live.monitors.thread_placement import PlacementSampler
from agbench.live.providers.chat_result import ChatResult
from agbench.live.providers.openai_compatible import ChatClient
from agbench.live.serving.llama_server import ManagedServer
from agbench.live.trajectories.sizing import CounterCache

pytestmark = [pytest.mark.server, pytest.mark.slow]


class CountingClient(ChatClient):
    """A real client that also records when each of its calls ran (the twin's)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.spans: list[tuple[float, float]] = []

    async def chat(self, *args: Any, **kwargs: Any) -> ChatResult:
        t0 = time.time()
        try:
            return await super().chat(*args, **kwargs)
        finally:  # the last one is cancelled when the probe is done
            self.spans.append((t0, time.time()))


def test_the_twin_probe_measures_beside_a_second_server_decoding(tmp_path: Path) -> None:
    settings = ServerSettings(n_ctx=1024, n_parallel=1, threads=1)
    options = ProfileOptions(out=tmp_path, server=settings, repeats=1, quiet=True)

    async def probe(
        main: ManagedServer, twin: ManagedServer, sampler: PlacementSampler
    ) -> tuple[Profiler, CountingClient]:
        counters = CounterCache()
        client = ChatClient(main.url, main.alias, max_retries=0)
        twin_client = CountingClient(twin.url, twin.alias, max_retries=0)
        placement = (sampler, main.pid or 0, twin.pid or 0) if sampler.available else None
        try:
            profiler = Profiler(options, client, await counters.counter(main.url), placement)
            await profiler.twin_decode(twin_client, 0)  # what run_all does first
            await profiler.cpu_twin(twin_client)  # and last
            return profiler, twin_client
        finally:
            await client.aclose()
            await twin_client.aclose()
            await counters.aclose()

    with (
        ManagedServer(settings) as main,
        ManagedServer(settings) as twin,
        PlacementSampler([main.pid or 0, twin.pid or 0]) as sampler,
    ):
        profiler, twin_client = asyncio.run(probe(main, twin, sampler))
    decode = [c for c in profiler.calls if c.probe == "decode_cpu_twin"]
    prefill = [c for c in profiler.calls if c.probe == "prefill_cpu_twin"]
    # decode calls in TWIN_BLOCKS blocks until each covers its share of TWIN_DECODE_S (here a
    # one-thread server beside a one-thread twin: fast, so every one of TWIN_DECODE_CALLS) and
    # TWIN_REPEATS prompts at each of the quiet probe's lengths, whatever --repeats, keyed as the
    # quiet probes are
    lengths = profiler.prompt_lengths()
    assert len(lengths) > 1
    per_block = TWIN_DECODE_CALLS // TWIN_BLOCKS
    for block in range(TWIN_BLOCKS):
        calls = [c for c in decode if c.params["block"] == block]
        assert len(calls) == per_block
        assert sum(c.total_s for c in calls[:-1]) < TWIN_DECODE_S / TWIN_BLOCKS
    assert [c.params["rep"] for c in decode] == list(range(TWIN_DECODE_CALLS))
    assert len(prefill) == TWIN_REPEATS * len(lengths)
    assert all(c.completion_tokens == DECODE_TOKENS and c.params["ctx"] == DISPLACED_CONTEXT for c in decode)
    assert sorted(c.params["tokens"] for c in prefill) == sorted(lengths * TWIN_REPEATS)
    assert all(c.prompt_tokens > c.cached_tokens for c in prefill)
    assert all(c.predicted_ms and c.prompt_ms for c in decode + prefill)
    if sampler.available:  # where each server's threads ran during each call: a share of it
        shares = [c.params[key] for c in decode + prefill for key in ("stacked", "twin_stacked")]
        assert len(shares) == 2 * len(decode + prefill)
        assert all(0.0 <= s <= 1.0 for s in shares)
    # the twin was decoding all the while: the twin's requests cover every measured call, with
    # no more than a request's turnaround between two of them
    for c in decode + prefill:
        a, b = c.t_start, c.t_start + c.total_s
        around = [span for span in twin_client.spans if span[1] >= a and span[0] <= b]
        assert around
        assert around[0][0] <= a
        assert around[-1][1] >= b
        assert all(y[0] - x[1] < 0.5 for x, y in itertools.pairwise(around))


def test_the_twin_probe_runs_only_where_two_servers_threads_overfill_the_cores(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(twin_server, "available_cores", lambda: 2)
    assert needs_twin(ProfileOptions(out=Path("."), server=ServerSettings(threads=2)))
    assert not needs_twin(ProfileOptions(out=Path("."), server=ServerSettings(threads=1)))
    # a twin of a server it did not start cannot be made
    external = ProfileOptions(out=Path("."), server=ServerSettings(threads=2), local_url="http://127.0.0.1:1")
    assert not needs_twin(external)
