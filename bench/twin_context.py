"""Does a crowded decode step slow by a factor, or by a stall added to each step?

The profile's twin probe decodes at a 64-token context, and the simulator applies the speed it
measures there as a factor to every decode step (``crowded_decode_speed``), whatever the
step's context. If a crowded step instead lost a fixed time at its barriers (as a short
prompt batch does: docs/design.md, "Crowded threads"), a longer step would slow by a smaller
factor. This decodes 48 tokens at a short and a long context, alone (before and after) and
beside a twin that decodes replies back to back (``twin_decoding``, as the profile's probe),
short and long interleaved, and prints the time per token and both readings: the speed
(alone / crowded) and the time added per token.

    .venv/bin/python bench/twin_context.py [--threads 2] [--long 1500] [--rounds 10]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
from dataclasses import replace
from typing import Any

from agbench.config import ServerSettings
from agbench.live.load.level import build_prompt
from agbench.live.load.probe_client import BODY, probe_client
from agbench.live.load.profile import DECODE_TOKENS
from agbench.live.load.twin_server import twin_decoding
from agbench.live.providers.chat_result import ChatResult
from agbench.live.providers.openai_compatible import ChatClient
from agbench.live.serving.llama_server import ManagedServer
from agbench.load import RequestSpec

SHORT = 64


async def measure(main: ManagedServer, twin: ManagedServer, long: int, rounds: int) -> None:
    async with probe_client(main.url, main.alias) as (client, counter):

        async def send(messages: list[dict[str, Any]], max_tokens: int) -> ChatResult:
            result = await client.chat(messages, max_tokens=max_tokens, extra_body=BODY)
            if result.error_class:
                raise SystemExit(f"request failed: {result.error_class} {result.error}")
            return result

        prompts = {
            n: await build_prompt(counter, RequestSpec(0.0, n, 1), k, "twin-context")
            for k, n in enumerate((SHORT, long))
        }
        twin_prompt = await build_prompt(counter, RequestSpec(0.0, SHORT, 1), 2, "twin-context")
        for n in (SHORT, long):
            await send(prompts[n], 1)  # cached: each call below decodes at once

        async def ms(context: int) -> float:
            r = await send(prompts[context], DECODE_TOKENS)
            tokens: int = max(1, int(r.completion_tokens or 0))
            return float(r.predicted_ms or 0.0) / tokens

        alone: dict[int, list[float]] = {SHORT: [], long: []}
        crowded: dict[int, list[float]] = {SHORT: [], long: []}
        for context in (SHORT, long, SHORT, long):
            alone[context].append(await ms(context))
        twin_client = ChatClient(twin.url, twin.alias, max_retries=0)
        try:
            async with twin_decoding(twin_client, twin_prompt):
                for k in range(rounds):
                    for context in (SHORT, long) if k % 2 == 0 else (long, SHORT):
                        crowded[context].append(await ms(context))
        finally:
            await twin_client.aclose()
        for context in (SHORT, long, SHORT, long):
            alone[context].append(await ms(context))
    for context in (SHORT, long):
        quiet, busy = statistics.median(alone[context]), statistics.mean(crowded[context])
        print(
            f"context {context:5d}: alone {quiet:6.1f} ms/token, beside the twin {busy:6.1f} "
            f"(mean of {len(crowded[context])}, {min(crowded[context]):.0f}-{max(crowded[context]):.0f}): "
            f"speed {quiet / busy:.3f}, added {busy - quiet:5.1f} ms/token"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--long", type=int, default=1500, help="the long context, tokens")
    parser.add_argument("--rounds", type=int, default=10, help="calls at each context beside the twin")
    args = parser.parse_args()
    settings = ServerSettings(n_ctx=4096, n_parallel=2, kv_unified=True, threads=args.threads)
    if args.long + DECODE_TOKENS > settings.slot_ctx:
        raise SystemExit(f"--long {args.long} does not fit a slot of {settings.slot_ctx} cells")
    twin_settings = replace(settings, n_parallel=1, n_ctx=settings.slot_ctx)
    with ManagedServer(settings) as main_server, ManagedServer(twin_settings) as twin:
        asyncio.run(measure(main_server, twin, args.long, args.rounds))


if __name__ == "__main__":
    main()
