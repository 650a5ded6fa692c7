"""Does streaming through the recording proxy slow the server's decode when several streams run?

A sweep sends every model request through the recording proxy (in the harness's process, beside
the agents); ``agbench profile-server`` talks to llama-server directly. Each decoded token of
each stream wakes the proxy and the client, on the cores the server's threads use. This sends
bursts of ``B`` requests at once (distinct prompts, cached first, forced output length), direct
and proxied in alternation, and compares llama.cpp's own decode time per token
(``predicted_ms``), which excludes HTTP time but not the server's lost cores.

    .venv/bin/python bench/proxy_batch_decode.py [--threads 2] [--batches 1,2,4] [--bursts 4]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
from pathlib import Path

from agbench.attempt import AttemptKey
from agbench.config import ServerSettings
from agbench.live.load.probe_client import BODY
from agbench.live.providers import ChatClient
from agbench.live.proxy import RecordingProxy, Upstream
from agbench.live.serving import ManagedServer


def prompt(i: int, words: int) -> list[dict[str, str]]:
    text = f"Story {i}: " + " ".join(f"w{i}x{k}" for k in range(words))
    return [{"role": "user", "content": text}]


async def burst(client: ChatClient, prompts: list[list[dict[str, str]]], tokens: int) -> list[float]:
    results = await asyncio.gather(*(client.chat(p, max_tokens=tokens, extra_body=BODY) for p in prompts))
    for r in results:
        if r.error_class:
            raise SystemExit(f"request failed: {r.error_class} {r.error}")
    return [r.predicted_ms / max(1, r.completion_tokens) for r in results if r.predicted_ms]


async def measure(url: str, args: argparse.Namespace, raw_log: Path) -> dict[tuple[str, int], list[float]]:
    out: dict[tuple[str, int], list[float]] = {}
    async with RecordingProxy({"local": Upstream(url)}, raw_log, lambda _r: None) as proxy:
        token = proxy.register_attempt(AttemptKey.of("bench", "here", "LO", 1, "bench", 0))
        direct = ChatClient(url, "smollm2-135m", max_retries=0)
        proxied = ChatClient(proxy.base_url("local", token), "smollm2-135m", max_retries=0)
        async with direct, proxied:
            n = 0
            for rep in range(args.bursts):
                for b in args.batches:
                    order = [("direct", direct), ("proxied", proxied)]
                    if rep % 2:
                        order.reverse()
                    for name, client in order:
                        prompts = [prompt(n + i, args.words) for i in range(b)]
                        n += b
                        await burst(client, prompts, 1)  # cache the prompts, one slot each
                        out.setdefault((name, b), []).extend(await burst(client, prompts, args.tokens))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batches", type=lambda s: [int(x) for x in s.split(",")], default=[1, 2, 4])
    parser.add_argument("--bursts", type=int, default=4, help="bursts per batch size and path")
    parser.add_argument("--tokens", type=int, default=64, help="tokens each stream decodes")
    parser.add_argument("--words", type=int, default=40, help="prompt words per stream")
    args = parser.parse_args()
    parallel = max(args.batches)
    settings = ServerSettings(n_ctx=4096, n_parallel=parallel, kv_unified=True, threads=args.threads)
    with tempfile.TemporaryDirectory() as tmp, ManagedServer(settings) as server:
        out = asyncio.run(measure(server.url, args, Path(tmp) / "raw.jsonl"))
    print(f"{args.threads} thread(s), {args.tokens} tokens a stream, {args.bursts} bursts per cell")
    for b in args.batches:
        d, p = statistics.median(out[("direct", b)]), statistics.median(out[("proxied", b)])
        print(
            f"  batch {b}: direct {d:6.2f} ms/token, proxied {p:6.2f} ms/token ({(p / d - 1) * 100:+.1f} %)"
        )


if __name__ == "__main__":
    main()
