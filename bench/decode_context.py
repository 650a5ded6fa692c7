"""Decode time per token by context length, well past what ``profile-server --quick`` measures.

``agbench profile-server`` measures decode at two contexts (64 and 512 prompt tokens; ``--quick``
64 and 256) and fits one KV slope per batch size, linear; the sweeps' conversations reach
2,000-4,000 cells. A decode step reads every cell of its sequences' KV (SmolLM2-135M: 30 layers
x 3 KV heads x 64 x 2 x 2 bytes = 23 KB a cell in f16), so once that no longer fits the
last-level cache (printed below) each cell should cost more. This decodes one sequence at each
context in a shuffled order (``Profiler.decode``, one slot, prompts cached first) and prints
the median per context and the slope between neighbouring contexts.

    .venv/bin/python bench/decode_context.py [--threads 2] [--contexts 256,1024,2048,3072,4096] [--repeats 4]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
from pathlib import Path

from agbench.config import ServerSettings
from agbench.live.load.probe_client import probe_client
from agbench.live.load.profile import Measured, ProfileOptions, Profiler
from agbench.live.serving.llama_server import ManagedServer


def last_level_cache() -> str:
    """The largest CPU cache Linux reports for cpu0 (sysfs), e.g. ``32768K``."""
    sizes = []
    for index in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"):
        with_level = index / "level"
        if with_level.exists():
            sizes.append((int(with_level.read_text()), (index / "size").read_text().strip()))
    return max(sizes)[1] if sizes else "unknown"


async def measure(url: str, alias: str, settings: ServerSettings, args: argparse.Namespace) -> list[Measured]:
    async with probe_client(url, alias) as (client, counter):
        options = ProfileOptions(out=Path("."), server=settings, repeats=1, quiet=True)
        profiler = Profiler(options, client, counter)
        order = [c for _ in range(args.repeats) for c in args.contexts]
        random.Random(3).shuffle(order)
        for context in order:
            await profiler.decode(contexts=[context], batches=[1])
        return profiler.calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--contexts", type=lambda s: [int(x) for x in s.split(",")], default=[256, 1024, 2048, 3072, 4096]
    )
    parser.add_argument("--repeats", type=int, default=4)
    args = parser.parse_args()
    settings = ServerSettings(n_ctx=max(args.contexts) + 512, n_parallel=1, threads=args.threads)
    with ManagedServer(settings) as server:
        calls = asyncio.run(measure(server.url, server.alias, settings, args))
    by_context: dict[int, list[float]] = {}
    for call in calls:
        if call.predicted_ms and call.completion_tokens:
            by_context.setdefault(call.params["ctx"], []).append(call.predicted_ms / call.completion_tokens)
    print(f"{args.threads} thread(s), one sequence, last-level cache {last_level_cache()}")
    previous: tuple[int, float] | None = None
    for context in sorted(by_context):
        values = by_context[context]
        median = statistics.median(values)
        slope = ""
        if previous is not None:
            slope = f"  slope from {previous[0]}: {(median - previous[1]) / (context - previous[0]) * 1000:.1f} us/cell"
        print(f"  context {context:5d}: {median:6.2f} ms/token {[round(v, 1) for v in values]}{slope}")
        previous = (context, median)


if __name__ == "__main__":
    main()
