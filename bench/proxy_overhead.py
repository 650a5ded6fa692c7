"""Latency the recording proxy adds: the same requests to llama-server directly and through
the proxy, interleaved in one run (pairs in random order, so drift hits both paths alike).

    .venv/bin/python bench/proxy_overhead.py [--requests 200] [--max-tokens 8] [--prompt-words 0]

Prints p50/p95 of the added latency per request (proxied minus direct, paired) and the ratio
of median end-to-end times. Targets: < 2 ms p50 added, < 3 % end to end.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path

from agbench.attempt import AttemptKey
from agbench.config import ServerSettings
from agbench.live.providers import ChatClient
from agbench.live.proxy import RecordingProxy, Upstream
from agbench.live.serving import ManagedServer


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def measure(
    url: str, requests: int, max_tokens: int, prompt_words: int, raw_log: Path
) -> tuple[list[float], list[float], int]:
    calls = 0

    def count(_record: object) -> None:
        nonlocal calls
        calls += 1

    system = "You are an agent that edits files with tools. " * max(0, prompt_words // 9)
    messages = [
        {"role": "system", "content": system},
        {"role": "user", "content": "Reply with one word: ready."},
    ]
    body = {"temperature": 0.0, "seed": 7}
    async with RecordingProxy({"local": Upstream(url)}, raw_log, count) as proxy:
        token = proxy.register_attempt(AttemptKey.of("bench", "here", "LO", 1, "bench", 0))
        direct = ChatClient(url, "smollm2-135m", max_retries=0)
        proxied = ChatClient(proxy.base_url("local", token), "smollm2-135m", max_retries=0)
        async with direct, proxied:
            for client in (direct, proxied):  # warm both paths (connections, prompt cache)
                await client.chat(messages, max_tokens=max_tokens, extra_body=body)
            d_times: list[float] = []
            p_times: list[float] = []
            rng = random.Random(1)
            for _ in range(requests):
                order = [("d", direct), ("p", proxied)]
                rng.shuffle(order)
                for name, client in order:
                    t0 = time.perf_counter()
                    result = await client.chat(messages, max_tokens=max_tokens, extra_body=body)
                    elapsed = time.perf_counter() - t0
                    if not result.ok:
                        raise SystemExit(f"request failed: {result.error_class} {result.error}")
                    (d_times if name == "d" else p_times).append(elapsed)
    return d_times, p_times, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--max-tokens", type=int, default=8)
    parser.add_argument(
        "--prompt-words", type=int, default=0, help="system prompt size (an agent's is ~300+)"
    )
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    settings = ServerSettings(n_ctx=1024, n_parallel=1, threads=args.threads)
    with tempfile.TemporaryDirectory() as tmp, ManagedServer(settings) as server:
        d, p, calls = asyncio.run(
            measure(server.url, args.requests, args.max_tokens, args.prompt_words, Path(tmp) / "raw.jsonl")
        )
    added = [(b - a) * 1000 for a, b in zip(d, p, strict=True)]
    med_d, med_p = statistics.median(d), statistics.median(p)
    print(
        f"requests: {len(d)} direct + {len(p)} proxied (interleaved), up to {args.max_tokens} tokens each, "
        f"system prompt {args.prompt_words} words (cached after the first)"
    )
    print(f"direct  end-to-end: p50 {med_d * 1000:.1f} ms  p95 {percentile(d, 0.95) * 1000:.1f} ms")
    print(f"proxied end-to-end: p50 {med_p * 1000:.1f} ms  p95 {percentile(p, 0.95) * 1000:.1f} ms")
    print(
        f"added latency (paired): p50 {statistics.median(added):.2f} ms  p95 {percentile(added, 0.95):.2f} ms"
    )
    print(f"added p50 / direct p50: {statistics.median(added) / (med_d * 1000) * 100:.2f} %")
    print(f"ratio of medians proxied/direct: {med_p / med_d:.4f} ({(med_p / med_d - 1) * 100:+.2f} %)")
    print(f"calls recorded by the proxy: {calls}")


if __name__ == "__main__":
    main()
