"""What the proxy's hand-written HTTP/1.1 client (live/proxy/http1.py) saves over httpx: the same
short streamed completion from a real llama-server, by each client in turn, interleaved in one
run (pairs in random order, so drift and the machine's other load hit both alike).

    nice -n 19 .venv/bin/python bench/http_client_latency.py [--requests 100] [--max-tokens 8]

Both clients send the same body (on a kept-alive connection where the server keeps it:
llama-server closes it after each streamed answer, which each client notices and reconnects,
as in a run) and read the answer through the
same chat stream reader (``providers/chat_stream``), as the proxy and the chat client do. Per
request it prints, for each client, the end-to-end time and the time to the first body piece,
the paired difference (httpx minus http1), and the client's own CPU time: the server runs in
another process, so this process's CPU seconds are the client's per-request overhead, a figure
that other load on the machine does not move. The server is started as tests/conftest.py
starts the session server (1024 KV tokens, 2 slots, 1 thread).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import httpx

from agbench.config import ServerSettings
from agbench.live.providers.chat_stream import ChatStreamReader, StreamAccumulator
from agbench.live.providers.openai_compatible import api_base, send_retrying_stale
from agbench.live.proxy.http1 import Http1Pool
from agbench.live.serving import ManagedServer

HEADERS = {"Content-Type": "application/json", "Accept": "text/event-stream"}


@dataclass
class Figures:
    """One client's per-request measurements (seconds)."""

    total: list[float] = field(default_factory=list)
    first_piece: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


Reader = Callable[[], Awaitable[tuple[float, str]]]  # -> (time to the first piece, content)


def http1_reader(pool: Http1Pool, payload: bytes) -> Reader:
    async def read() -> tuple[float, str]:
        t0 = time.perf_counter()
        state = StreamAccumulator(time.monotonic())
        reader = ChatStreamReader(state)
        first = 0.0
        response = await pool.request("POST", "/chat/completions", dict(HEADERS), payload)
        try:
            async for piece in response.body():
                first = first or time.perf_counter() - t0
                reader.feed(piece, time.monotonic())
            reader.close(time.monotonic())
        finally:
            response.release()
        return first, "".join(state.content)

    return read


def httpx_reader(client: httpx.AsyncClient, url: str, payload: bytes) -> Reader:
    async def read() -> tuple[float, str]:
        t0 = time.perf_counter()
        state = StreamAccumulator(time.monotonic())
        reader = ChatStreamReader(state)
        first = 0.0
        request = client.build_request("POST", url, content=payload, headers=HEADERS)
        response = await send_retrying_stale(client, request)  # as the chat client sends
        try:
            async for piece in response.aiter_bytes():
                first = first or time.perf_counter() - t0
                reader.feed(piece, time.monotonic())
        finally:
            await response.aclose()
        reader.close(time.monotonic())
        return first, "".join(state.content)

    return read


async def measure(url: str, requests: int, max_tokens: int) -> dict[str, Figures]:
    body = {
        "messages": [{"role": "user", "content": "Write a short poem about the sea."}],
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": max_tokens,
        "temperature": 0.0,
        "seed": 7,
    }
    payload = json.dumps(body).encode()
    base = api_base(url)
    pool = Http1Pool(base)
    limits = httpx.Limits(max_connections=256, max_keepalive_connections=64)  # as the chat client's
    async with httpx.AsyncClient(timeout=600, limits=limits, trust_env=False) as client:
        readers = {
            "http1": http1_reader(pool, payload),
            "httpx": httpx_reader(client, base + "/chat/completions", payload),
        }
        answers = {name: (await read())[1] for name, read in readers.items()}  # warm: prompt cache
        if len(set(answers.values())) != 1:
            raise SystemExit(f"the clients read different answers: {answers}")
        print(f"the answer (both clients, every request): {answers['http1']!r}")
        figures = {name: Figures() for name in readers}
        rng = random.Random(1)
        for _ in range(requests):
            order = list(readers)
            rng.shuffle(order)
            for name in order:
                cpu0, t0 = time.process_time(), time.perf_counter()
                first, content = await readers[name]()
                figures[name].total.append(time.perf_counter() - t0)
                figures[name].cpu.append(time.process_time() - cpu0)
                figures[name].first_piece.append(first)
                if content != answers[name]:
                    raise SystemExit(f"{name}: the answer changed: {content!r}")
    pool.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=100, help="pairs of requests")
    parser.add_argument("--max-tokens", type=int, default=8)
    args = parser.parse_args()
    settings = ServerSettings(n_ctx=1024, n_parallel=2, threads=1)
    with ManagedServer(settings) as server:
        figures = asyncio.run(measure(server.url, args.requests, args.max_tokens))
    print(f"{args.requests} requests per client (interleaved), up to {args.max_tokens} tokens, streamed")
    for name, f in figures.items():
        print(
            f"{name}: end-to-end p50 {statistics.median(f.total) * 1e3:.2f} ms"
            f"  p95 {percentile(f.total, 0.95) * 1e3:.2f} ms;"
            f"  first piece p50 {statistics.median(f.first_piece) * 1e3:.2f} ms;"
            f"  client CPU per request p50 {statistics.median(f.cpu) * 1e3:.3f} ms"
            f"  mean {statistics.fmean(f.cpu) * 1e3:.3f} ms"
        )
    a, b = figures["http1"], figures["httpx"]
    paired = [(y - x) * 1e3 for x, y in zip(a.total, b.total, strict=True)]
    cpu = [(y - x) * 1e3 for x, y in zip(a.cpu, b.cpu, strict=True)]
    print(
        f"httpx minus http1, paired: end-to-end p50 {statistics.median(paired):+.2f} ms"
        f"  (p05 {percentile(paired, 0.05):+.2f}, p95 {percentile(paired, 0.95):+.2f});"
        f"  client CPU p50 {statistics.median(cpu):+.3f} ms"
    )


if __name__ == "__main__":
    main()
