"""Does a decode step pay for other sequences' cells in a unified KV pool?

In a unified pool llama.cpp's attention spans the stream's used cells (``get_n_kv``), every
sequence's included and masked. This measures what that costs a *decode* step: one sequence
decodes (its context short and fixed) while idle slots hold ``--held`` cells each (their
prompts cached with one-token requests), for several held sizes in a shuffled order, every
condition on a freshly started server (an empty pool: erasing slots needs
``--slot-save-path``). The server picks the slots (a fresh prompt goes to a never-used one).

What the idle slots hold is read from the server's ``/slots`` *while* the measured call
decodes, not assumed: llama-server's ``--cache-idle-slots`` (on by default) saves every idle
slot to the host-memory prompt cache and clears it when a task starts in a unified pool, so
with it on the idle slots hold nothing while the measured sequence decodes (measured: 0 cells
in every condition), and pinning slots with ``id_slot`` empties them as well. An earlier
version filled the slots and took the cells as held; its slope measured nothing.

    .venv/bin/python bench/masked_decode.py [--threads 2] [--held 0,500,1000,2000] [--repeats 3]

Prints the decode time per token (llama.cpp's ``predicted_ms``) per cells held, and the slope
per 1,000 held cells (least squares over every call).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
from typing import Any

import httpx

from agbench.config import ServerSettings
from agbench.live.load.level import build_prompt
from agbench.live.load.probe_client import BODY, probe_client
from agbench.live.providers.chat_result import ChatResult
from agbench.live.providers.openai_compatible import ChatClient
from agbench.live.serving.llama_server import ManagedServer
from agbench.live.trajectories.sizing import TokenCounter
from agbench.load import RequestSpec


class Probe:
    def __init__(self, url: str, client: ChatClient, counter: TokenCounter) -> None:
        self.client = client
        self.http = httpx.AsyncClient(timeout=30.0)
        self.slots_url = url.removesuffix("/v1") + "/slots"
        self.counter = counter
        self.n = 0

    async def prompt(self, tokens: int) -> list[dict[str, Any]]:
        self.n += 1
        return await build_prompt(self.counter, RequestSpec(0.0, tokens, 1), self.n, "masked-decode")

    async def send(self, messages: list[dict[str, Any]], max_tokens: int) -> ChatResult:
        result = await self.client.chat(messages, max_tokens=max_tokens, extra_body=BODY)
        if result.error_class:
            raise SystemExit(f"request failed: {result.error_class} {result.error}")
        return result

    async def one(self, held: int, idle: int, context: int, tokens: int) -> tuple[float, int]:
        """(ms per decoded token, cells the other slots held while it decoded) for one condition."""
        own = await self.prompt(context)
        await self.send(own, 8)  # the first request after a start is slow; its slot is own's
        for _ in range(idle):
            if held > 0:
                await self.send(await self.prompt(held), 1)
        # its prompt may have been cleared with the idle slots; predicted_ms is decode alone
        call = asyncio.create_task(self.send(own, tokens))
        await asyncio.sleep(0.3)  # decoding by now
        holding = await self.slot_tokens()
        result = await call
        return result.predicted_ms / max(1, result.completion_tokens), holding

    async def slot_tokens(self) -> int:
        """Prompt tokens the idle slots (every one but the decoding) hold now (``/slots``)."""
        response = await self.http.get(self.slots_url)
        response.raise_for_status()
        return sum(int(s.get("n_prompt_tokens") or 0) for s in response.json() if not s.get("is_processing"))


async def measure(args: argparse.Namespace, url: str, alias: str, held: int) -> tuple[float, int]:
    async with probe_client(url, alias) as (client, counter):
        probe = Probe(url, client, counter)
        try:
            return await probe.one(held, args.parallel - 1, args.context, args.tokens)
        finally:
            await probe.http.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--parallel", type=int, default=4, help="slots: one decodes, the rest hold cells")
    parser.add_argument("--ctx", type=int, default=8192, help="unified pool cells")
    parser.add_argument("--held", type=lambda s: [int(x) for x in s.split(",")], default=[0, 500, 1000, 2000])
    parser.add_argument("--context", type=int, default=64, help="the decoding sequence's prompt tokens")
    parser.add_argument("--tokens", type=int, default=48, help="tokens decoded per measurement")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    settings = ServerSettings(n_ctx=args.ctx, n_parallel=args.parallel, kv_unified=True, threads=args.threads)
    conditions = [h for h in args.held for _ in range(args.repeats)]
    random.Random(7).shuffle(conditions)
    rows = []
    for held in conditions:
        with ManagedServer(settings) as server:
            ms, cells = asyncio.run(measure(args, server.url, server.alias, held))
        rows.append((cells, ms))
        print(
            f"filled {held:5d} cells a slot; while it decoded the other slots held {cells:6d}: "
            f"{ms:7.2f} ms/token",
            flush=True,
        )
    print(
        f"\n{args.threads} thread(s), {args.parallel} slots, unified {args.ctx} cells, "
        f"one sequence of {args.context} tokens decoding {args.tokens}"
    )
    for cells in sorted({c for c, _ in rows}):
        values = [ms for c, ms in rows if c == cells]
        print(
            f"  other slots held {cells:6d} cells: median {statistics.median(values):7.2f} ms/token "
            f"(min {min(values):.2f}, max {max(values):.2f}, n {len(values)})"
        )
    if len({c for c, _ in rows}) < 2:
        print(
            "  the other slots held the same cells in every condition: no slope to fit "
            "(with --cache-idle-slots, llama-server's default, idle slots hold none)"
        )
        return
    xs = [c / 1000 for c, _ in rows]
    ys = [ms for _, ms in rows]
    slope, intercept = statistics.linear_regression(xs, ys)
    print(f"  least squares: {intercept:.2f} ms/token + {slope:.2f} ms per 1,000 held cells")


if __name__ == "__main__":
    main()
