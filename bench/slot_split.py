"""Does llama-server cut a batch by slot on a per-slot pool, and what does a cut cost?

With ``--kv-unified`` off, llama.cpp splits every batch with ``split_equal(n_ubatch,
sequential = true)``: a micro-batch holds only sequences whose slot ids follow one another, so
sequences decoding in slots 0 and 2 run as two passes over the weights where slots 0 and 1 run
as one (sim/entities/micro_batches.py). This measures it on a fresh server of ``--slots`` slots:

* **decode**: sequences pinned to given slots (``id_slot``) decode ``--tokens`` tokens together;
  the median milliseconds a step, beside the simulator's price: one step per run of consecutive
  slots, each at the step measured here for a consecutive set of that width;
* **prompt**: a fresh ``--prompt``-token prompt alone, and beside one sequence decoding in the
  slot below or above it; its ``prompt_ms``;
* **pair**: two fresh prompts of that length sent together while slot 5 decodes, in slots 1
  and 2 (one prompt pass: equal tokens from each) or 1 and 3 (a pass each); the batch's time
  (the larger ``prompt_ms``; pairs read one after the other are left out). The difference is
  what one more prompt pass costs beyond its tokens.

Run once per pool kind (per-slot, then ``--unified`` as the contrast: one stream, no cut). On
the unified pool the prompt figures also carry the masked range: earlier probes' slots, saved
and cleared at each launch, leave holes below the cells in use that a prompt's attention spans
(docs/design.md), measured at +164 to +190 ms beside a decoding slot there; on a fresh
two-slot server of either kind, with no holes, the same prompt took 10-30 ms more beside a
decoding slot than alone once the server had run a few requests.

    .venv/bin/python bench/slot_split.py [--unified] [--threads 1] [--slots 8] [--repeats 3]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
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

DECODE_SETS: tuple[tuple[int, ...], ...] = (
    (0,),
    (0, 1),
    (0, 1, 2),
    (0, 1, 2, 3),
    (0, 2),
    (0, 2, 4, 6),
    (0, 1, 2, 4, 5, 6),
    (0, 1, 3, 4, 6, 7),
)
#: (slot decoding beside it or None, slot of the prompt)
PROMPT_CASES: tuple[tuple[int | None, int], ...] = ((None, 1), (0, 1), (2, 1), (0, 2))
#: two prompts read together beside slot 5 decoding: one pass (neighbours) or two
PAIR_CASES: tuple[tuple[int, int], ...] = ((1, 2), (1, 3))
PAIR_BESIDE = 5


class Probe:
    def __init__(self, client: ChatClient, counter: TokenCounter) -> None:
        self.client, self.counter, self.n = client, counter, 0

    async def fresh(self, tokens: int) -> list[dict[str, Any]]:
        self.n += 1
        return await build_prompt(self.counter, RequestSpec(0.0, tokens, 1), self.n, f"slot-split-{self.n}")

    async def send(
        self, messages: list[dict[str, Any]], max_tokens: int, slot: int, **extra: Any
    ) -> ChatResult:
        body = {**BODY, "id_slot": slot, **extra}
        result = await self.client.chat(messages, max_tokens=max_tokens, extra_body=body)
        if result.error_class:
            raise SystemExit(f"request failed: {result.error_class} {result.error}")
        return result

    async def decode_step_ms(self, slots: tuple[int, ...], tokens: int) -> float:
        prompts = [await self.fresh(64) for _ in slots]
        for p, s in zip(prompts, slots, strict=True):  # each cached on its slot first
            await self.send(p, 1, s)
        results = await asyncio.gather(
            *(self.send(p, tokens, s, ignore_eos=True) for p, s in zip(prompts, slots, strict=True))
        )
        return statistics.mean((r.predicted_ms or 0.0) / max(1, r.completion_tokens) for r in results)

    async def pair_ms(self, slots: tuple[int, int], tokens: int) -> float | None:
        prompts = [await self.fresh(tokens) for _ in slots]
        decoding = asyncio.create_task(self.send(await self.fresh(64), 250, PAIR_BESIDE, ignore_eos=True))
        await asyncio.sleep(0.8)
        a, b = await asyncio.gather(*(self.send(p, 1, s) for p, s in zip(prompts, slots, strict=True)))
        await decoding
        ms = sorted((a.prompt_ms or 0.0, b.prompt_ms or 0.0))
        return ms[1] if ms[0] > 0.8 * ms[1] else None  # read one after the other: not one batch

    async def prompt_ms(self, beside: int | None, slot: int, tokens: int) -> float:
        prompt = await self.fresh(tokens)
        if beside is None:
            return (await self.send(prompt, 1, slot)).prompt_ms or 0.0
        decoding = asyncio.create_task(self.send(await self.fresh(64), 250, beside, ignore_eos=True))
        await asyncio.sleep(0.8)  # its prompt read, it decodes
        result = await self.send(prompt, 1, slot)
        await decoding
        return result.prompt_ms or 0.0


def runs_of(slots: tuple[int, ...]) -> list[int]:
    """The widths of the runs of consecutive slots: the micro-batches llama.cpp cuts."""
    widths = [1]
    for a, b in itertools.pairwise(slots):
        if b == a + 1:
            widths[-1] += 1
        else:
            widths.append(1)
    return widths


async def measure(url: str, alias: str, args: argparse.Namespace) -> None:
    sets = [s for s in DECODE_SETS if max(s) < args.slots]
    async with probe_client(url, alias) as (client, counter):
        probe = Probe(client, counter)
        await probe.send([{"role": "user", "content": "warm up"}], 8, 0)
        decode: dict[tuple[int, ...], list[float]] = {s: [] for s in sets}
        order = [s for s in sets for _ in range(args.repeats)]
        random.Random(3).shuffle(order)
        for s in order:
            decode[s].append(await probe.decode_step_ms(s, args.tokens))
        prompt: dict[tuple[int | None, int], list[float]] = {c: [] for c in PROMPT_CASES}
        cases = [c for c in PROMPT_CASES for _ in range(args.repeats)]
        random.Random(4).shuffle(cases)
        for beside, slot in cases:
            prompt[(beside, slot)].append(await probe.prompt_ms(beside, slot, args.prompt))
        pair: dict[tuple[int, int], list[float]] = {c: [] for c in PAIR_CASES}
        pairs = [c for c in PAIR_CASES for _ in range(2 * args.repeats)]
        random.Random(5).shuffle(pairs)
        for slots in pairs:
            ms = await probe.pair_ms(slots, args.prompt)
            if ms is not None:
                pair[slots].append(ms)
    kind = "unified" if args.unified else "per-slot"
    step = {s: statistics.median(v) for s, v in decode.items()}
    width = {len(s): ms for s, ms in step.items() if runs_of(s) == [len(s)]}  # consecutive sets
    print(
        f"\n{kind} pool, {args.slots} slots, {args.threads} thread(s): ms a decode step ({args.repeats} each)"
    )
    for s, ms in step.items():
        priced = [width.get(w) for w in runs_of(s)]
        price = f"{sum(p for p in priced if p is not None):7.1f}" if None not in priced else "      -"
        print(f"  slots {','.join(map(str, s)):<14s} measured {ms:7.1f}   one step a run {price}")
    alone = statistics.median(prompt[(None, 1)])
    print(f"{kind}: ms of a fresh {args.prompt}-token prompt (llama.cpp prompt_ms)")
    for (beside, slot), values in prompt.items():
        where = "alone" if beside is None else f"beside slot {beside} decoding"
        ms = statistics.median(values)
        print(f"  slot {slot} {where:<24s} {ms:7.1f}  ({ms - alone:+6.1f})")
    print(
        f"{kind}: ms of two fresh {args.prompt}-token prompts read together beside slot {PAIR_BESIDE} decoding"
    )
    for slots, values in pair.items():
        ms = statistics.median(values) if values else float("nan")
        print(f"  slots {slots[0]},{slots[1]}: {ms:7.1f}   ({len(values)} pairs in one batch)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--unified", action="store_true", help="one unified pool (the contrast)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--slots", type=int, default=8)
    parser.add_argument("--ctx-per-slot", type=int, default=1024)
    parser.add_argument("--tokens", type=int, default=100, help="tokens decoded a sequence")
    parser.add_argument("--prompt", type=int, default=80, help="tokens of the fresh prompt")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    settings = ServerSettings(
        n_ctx=args.slots * args.ctx_per_slot,
        n_parallel=args.slots,
        kv_unified=args.unified,
        threads=args.threads,
    )
    with ManagedServer(settings) as server:
        asyncio.run(measure(server.url, server.alias, args))


if __name__ == "__main__":
    main()
