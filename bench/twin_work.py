"""A server's decode and prompt speed beside a twin server that decodes, or reads prompts.

A hybrid sweep runs two llama-servers on the same cores (the local one and the cloud
stand-in). ``profile-server``'s twin probe measures the profiled server beside a twin that
*decodes* without a pause (``Profiler.cpu_twin``), and the simulator uses that one speed
whatever the other server is doing (``crowded_decode_speed``, ``crowded_prefill_speed``). Live,
the other server is as often reading a prompt: one long batch with every thread busy, rather
than many short steps that each end at a barrier. This measures the difference: the probe
server (one slot, prompts cached first) decodes 48 tokens at a 256-token context and reads a
fresh 226-token prompt, alone, beside a twin decoding 64-token replies back to back, and beside
a twin reading a 497-token prompt over and over (``cache_prompt`` off, one output token),
conditions shuffled, each repeated. Prints the median ms per token and the speed relative to
alone, the form the profile's crowded table has.

    .venv/bin/python bench/twin_work.py [--threads 2] [--repeats 6]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
from typing import Any

from agbench.config import ServerSettings
from agbench.live.load.level import build_prompt
from agbench.live.load.probe_client import BODY, probe_client
from agbench.live.providers.chat_result import ChatResult
from agbench.live.providers.openai_compatible import ChatClient
from agbench.live.serving.llama_server import ManagedServer
from agbench.live.trajectories.sizing import TokenCounter
from agbench.load import RequestSpec

CONTEXT, DECODE_TOKENS, FRESH_TOKENS, TWIN_PROMPT_TOKENS, TWIN_REPLY_TOKENS = 256, 48, 226, 497, 64
CONDITIONS = ("alone", "twin decoding", "twin reading prompts")


class Prompts:
    """Fresh prompts of exact lengths that share nothing (as ``Profiler._prompt`` builds them)."""

    def __init__(self, counter: TokenCounter) -> None:
        self.counter, self.n = counter, 0

    async def fresh(self, tokens: int) -> list[dict[str, Any]]:
        self.n += 1
        return await build_prompt(self.counter, RequestSpec(0.0, tokens, 1), self.n, "twin-work")


async def send(client: ChatClient, prompt: list[dict[str, Any]], max_tokens: int) -> ChatResult:
    result = await client.chat(prompt, max_tokens=max_tokens, extra_body=BODY)
    if result.error_class:
        raise SystemExit(f"request failed: {result.error_class} {result.error}")
    return result


async def keep_busy(twin: ChatClient, prompt: list[dict[str, Any]], condition: str) -> None:
    """The twin's work under ``condition`` (none when alone), back to back until cancelled."""
    if condition == "alone":
        return
    while True:
        if condition == "twin decoding":
            await twin.chat(prompt, max_tokens=TWIN_REPLY_TOKENS, extra_body=BODY)
        else:
            await twin.chat(prompt, max_tokens=1, extra_body={**BODY, "cache_prompt": False})


async def measure(
    probe_url: str, twin_url: str, alias: str, repeats: int, context: int
) -> dict[str, dict[str, list[float]]]:
    twin = ChatClient(twin_url, alias, max_retries=0)
    try:
        async with probe_client(probe_url, alias) as (client, counter):
            return await _conditions(client, twin, Prompts(counter), repeats, context)
    finally:
        await twin.aclose()


async def _conditions(
    client: ChatClient,
    twin: ChatClient,
    prompts: Prompts,
    repeats: int,
    context: int,
) -> dict[str, dict[str, list[float]]]:
    """Each condition ``repeats`` times in a shuffled order: the probe's ms per token, by kind."""
    out: dict[str, dict[str, list[float]]] = {c: {"decode": [], "prefill": []} for c in CONDITIONS}
    twin_prompts = {
        "twin decoding": await prompts.fresh(context),
        "twin reading prompts": await prompts.fresh(TWIN_PROMPT_TOKENS),
        "alone": [],
    }
    await twin.chat(twin_prompts["twin decoding"], max_tokens=1, extra_body=BODY)  # cached
    order = [c for _ in range(repeats) for c in CONDITIONS]
    random.Random(5).shuffle(order)
    for condition in order:
        cached = await prompts.fresh(context)
        fresh = await prompts.fresh(FRESH_TOKENS)
        await send(client, cached, 1)  # its prompt cached before the twin starts
        task = asyncio.create_task(keep_busy(twin, twin_prompts[condition], condition))
        try:
            await asyncio.sleep(0.3)  # the twin is at work
            decoded = await send(client, cached, DECODE_TOKENS)
            read = await send(client, fresh, 1)
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if decoded.predicted_ms and decoded.completion_tokens:
            out[condition]["decode"].append(decoded.predicted_ms / decoded.completion_tokens)
        if read.prompt_ms and read.prompt_tokens - read.cached_tokens > 0:
            out[condition]["prefill"].append(read.prompt_ms / (read.prompt_tokens - read.cached_tokens))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=6)
    parser.add_argument(
        "--context", type=int, default=CONTEXT, help="the probe's and the twin's decode context"
    )
    args = parser.parse_args()
    settings = ServerSettings(n_ctx=2048, n_parallel=1, threads=args.threads)
    with ManagedServer(settings) as probe, ManagedServer(settings) as twin:
        figures = asyncio.run(measure(probe.url, twin.url, probe.alias, args.repeats, args.context))
    print(
        f"two servers of {args.threads} thread(s) each; probe decode at {args.context} cells, fresh {FRESH_TOKENS}-token prompt"
    )
    alone = {kind: statistics.median(figures["alone"][kind]) for kind in ("decode", "prefill")}
    for condition in CONDITIONS:
        for kind in ("decode", "prefill"):
            values = figures[condition][kind]
            median = statistics.median(values)
            print(
                f"  {condition:22s} {kind:8s} {median:8.2f} ms/token  speed {alone[kind] / median:5.3f}"
                f"  {[round(v, 1) for v in values]}"
            )


if __name__ == "__main__":
    main()
