"""Does a llama-server with more slots run one request slower?

A sweep starts its server with ``--parallel`` = the concurrency, so its C = 1 configurations
run a one-slot server and the others a server of two, four, eight slots; the server profile
runs with the sweep's largest. Calibration sets the profile's rates to the speed the C = 1
calls ran at (``calibrate.level_rates``), so if one request runs at another speed on a server
with more slots, every level above 1 is simulated at the wrong speed. This measures it: a fresh
server per condition (``--parallel`` 1, 2, 4, 8, shuffled, repeated; the same unified pool and
threads), one request at a time on it: a fresh ``--prompt``-token prompt (llama.cpp's
``prompt_ms``), then the same prompt again decoding ``--tokens`` tokens (``predicted_ms``).
Prints the median prompt and decode time per token by slot count, and each over one slot's.

    .venv/bin/python bench/parallel_slots.py [--threads 1] [--ctx 4096] [--slots 1,2,4,8] [--repeats 3]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
from typing import Any

from agbench.config import ServerSettings
from agbench.live.load.level import build_prompt
from agbench.live.load.probe_client import BODY, probe_client
from agbench.live.providers.chat_result import ChatResult
from agbench.live.providers.openai_compatible import ChatClient
from agbench.live.serving.llama_server import ManagedServer
from agbench.load import RequestSpec


async def send(client: ChatClient, messages: list[dict[str, Any]], max_tokens: int) -> ChatResult:
    result = await client.chat(messages, max_tokens=max_tokens, extra_body=BODY)
    if result.error_class:
        raise SystemExit(f"request failed: {result.error_class} {result.error}")
    return result


async def measure(url: str, alias: str, prompt: int, tokens: int, n: int) -> tuple[float, float]:
    """(ms per prompt token, ms per decoded token) of one request alone on a fresh server."""
    async with probe_client(url, alias) as (client, counter):
        await send(client, [{"role": "user", "content": "warm up"}], 8)  # the first call is slow
        messages = await build_prompt(counter, RequestSpec(0.0, prompt, 1), n, "parallel-slots")
        fresh = await send(client, messages, 1)
        again = await send(client, messages, tokens)  # cached: one token of prompt work
        new = max(1, fresh.prompt_tokens - fresh.cached_tokens)
        return (fresh.prompt_ms or 0.0) / new, (again.predicted_ms or 0.0) / max(1, again.completion_tokens)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--ctx", type=int, default=4096, help="unified pool cells")
    parser.add_argument("--slots", type=lambda s: [int(x) for x in s.split(",")], default=[1, 2, 4, 8])
    parser.add_argument("--prompt", type=int, default=480, help="prompt tokens")
    parser.add_argument("--tokens", type=int, default=48, help="tokens decoded")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    conditions = [s for s in args.slots for _ in range(args.repeats)]
    random.Random(5).shuffle(conditions)
    rows: dict[int, list[tuple[float, float]]] = {s: [] for s in args.slots}
    for i, slots in enumerate(conditions):
        settings = ServerSettings(n_ctx=args.ctx, n_parallel=slots, kv_unified=True, threads=args.threads)
        with ManagedServer(settings) as server:
            prompt_ms, decode_ms = asyncio.run(measure(server.url, server.alias, args.prompt, args.tokens, i))
        rows[slots].append((prompt_ms, decode_ms))
        print(
            f"--parallel {slots}: {prompt_ms:6.2f} ms a prompt token, {decode_ms:6.2f} ms a decoded token",
            flush=True,
        )
    print(
        f"\n{args.threads} thread(s), unified {args.ctx} cells, one request: a {args.prompt}-token prompt, "
        f"then {args.tokens} tokens decoded on it"
    )
    base_p = statistics.median(p for p, _ in rows[args.slots[0]])
    base_d = statistics.median(d for _, d in rows[args.slots[0]])
    for slots in args.slots:
        p = statistics.median(x for x, _ in rows[slots])
        d = statistics.median(x for _, x in rows[slots])
        print(
            f"  --parallel {slots:2d}: prompt {p:6.2f} ms a token ({p / base_p:5.2f} x), "
            f"decode {d:6.2f} ms a token ({d / base_d:5.2f} x)   n {len(rows[slots])}"
        )


if __name__ == "__main__":
    main()
