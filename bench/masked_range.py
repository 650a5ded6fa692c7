"""Does a prompt's masked-cell cost stay linear up to a full pool?

A unified pool's prompt batches span every sequence's cells (``llama_kv_cache::get_n_kv``), so
another sequence's cells slow a prompt (``ServerRates.masked_s``: seconds per 1,000 such cells,
per batch and per token). The server profile measures it with background sequences holding a
quarter to 60 % of the pool; a sweep at eight agents fills the pool, so every C = 8 prediction
reads the term past its measured range, on the straight line through it. This measures the
line's far end: one background sequence holding ``--held`` cells (from a few to about 80 % of
the pool) decodes while a fresh ``--tokens`` prompt is read, on one server, the conditions
shuffled, each ``--repeats`` times. Printed per held size: the prompt's median ``prompt_ms``
and its excess over the smallest size's, then the line fitted on the sizes within the
profile's range (up to ``--fit-up-to`` cells) and what it gives at the larger ones.

    .venv/bin/python bench/masked_range.py [--threads 1] [--ctx 4096] [--held 64,1024,2048,3072]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics

import numpy as np

from agbench.config import ServerSettings
from agbench.live.load.level import build_prompt
from agbench.live.load.probe_client import BODY, probe_client
from agbench.live.serving.llama_server import ManagedServer
from agbench.load import RequestSpec

BACKGROUND_DECODE = 160  # tokens the background decodes: it is decoding all through the probe


async def measure(url: str, alias: str, conditions: list[tuple[int, int]]) -> list[tuple[int, int, float]]:
    """(held, probe tokens, probe prompt_ms) per condition, in the order given."""
    out: list[tuple[int, int, float]] = []
    async with probe_client(url, alias) as (client, counter):
        await client.chat([{"role": "user", "content": "warm up"}], max_tokens=4, extra_body=BODY)
        for i, (held, tokens) in enumerate(conditions):
            background = await build_prompt(counter, RequestSpec(0.0, held, 1), 1000 + i, "masked-bg")
            await client.chat(background, max_tokens=1, extra_body=BODY)  # read once: then cached
            probe = await build_prompt(counter, RequestSpec(0.0, tokens, 1), 2000 + i, "masked-probe")
            decoding = asyncio.create_task(
                client.chat(background, max_tokens=BACKGROUND_DECODE, extra_body=BODY)
            )
            await asyncio.sleep(0.5)  # the background is decoding
            result = await client.chat(probe, max_tokens=1, extra_body=BODY)
            bg = await decoding
            if result.error_class or bg.error_class or result.prompt_ms is None:
                raise SystemExit(f"request failed: {result.error_class or bg.error_class}")
            out.append((held, result.prompt_tokens - result.cached_tokens, result.prompt_ms))
            print(
                f"held {held:5d}, probe {out[-1][1]:4d} new tokens: prompt {result.prompt_ms:8.1f} ms",
                flush=True,
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--ctx", type=int, default=4096, help="unified pool cells")
    parser.add_argument(
        "--held", type=lambda s: [int(x) for x in s.split(",")], default=[64, 1024, 2048, 3072]
    )
    parser.add_argument("--tokens", type=lambda s: [int(x) for x in s.split(",")], default=[384])
    parser.add_argument("--fit-up-to", type=int, default=2048, help="held sizes the line is fitted on")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    conditions = [(h, t) for h in args.held for t in args.tokens for _ in range(args.repeats)]
    random.Random(11).shuffle(conditions)
    settings = ServerSettings(n_ctx=args.ctx, n_parallel=2, kv_unified=True, threads=args.threads)
    with ManagedServer(settings) as server:
        rows = asyncio.run(measure(server.url, server.alias, conditions))
    print(f"\n{args.threads} thread(s), unified {args.ctx} cells, one background decoding beside the probe")
    for tokens in args.tokens:
        mine = [(h, ms) for h, t, ms in rows if abs(t - tokens) <= max(8, tokens // 4)]
        med = {
            h: statistics.median(ms for hh, ms in mine if hh == h)
            for h in args.held
            if any(hh == h for hh, _ in mine)
        }
        if len(med) < 2:
            continue
        base = med[min(med)]
        inside = sorted(h for h in med if h <= args.fit_up_to)
        slope, icept = (
            np.polyfit(inside, [med[h] for h in inside], 1) if len(inside) >= 2 else (np.nan, np.nan)
        )
        print(
            f"~{tokens}-token probe: held, median prompt ms, excess over held {min(med)}, the line fitted up to {args.fit_up_to}"
        )
        for h, ms in sorted(med.items()):
            line = slope * h + icept
            print(
                f"{h:8d} {ms:9.1f} {ms - base:+9.1f}   line {line:9.1f} ({(ms - line) / line * 100:+.1f} %)"
            )
        print(
            f"slope: {slope:.3f} ms per cell held = {slope / tokens * 1000:.3f} ms per token per 1,000 cells"
        )


if __name__ == "__main__":
    main()
