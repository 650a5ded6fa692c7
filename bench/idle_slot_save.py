"""What does saving an idle slot cost the request that starts?

llama-server's ``--cache-idle-slots`` (on by default, with ``--cache-ram``) saves every idle
slot's state to the host-memory prompt cache when a task starts (``process_single_task``,
after ``launch_slot_with_task``: ``slot.prompt_save``, then with a unified pool
``prompt_clear``; a per-slot pool is saved and kept). The save is skipped where the cache
already holds the slot's tokens (``server_prompt_cache::alloc``: "prompt is already in the
cache"), so what a launch copies is the idle slots that changed since they were last saved:
from two agents on, the other agents' slots after their last turn. It runs on the main loop
between two batches, before the new task's prompt timer starts: not in ``prompt_ms``, in the
time to first token, and every other slot waits.

Two conditions per trial, on a fresh server each (``--slots`` slots, one thread):

* **changed**: a conversation of ``--held`` tokens is read into a slot and left idle; then the
  probe (a new ``--probe``-token prompt, one output token) lands on a never-used slot, and its
  launch saves the held slot;
* **saved**: the same, but a one-token-output request on a third slot comes between, so the
  held slot was saved at that launch and the probe's launch finds it cached (it saves only the
  short request's slot).

The probe's wait before its prompt work (TTFT less llama.cpp's ``prompt_ms``) in ``changed``
less ``saved`` is what saving ``--held`` tokens cost it (the short request's own save, a few
dozen tokens, is in both).

    .venv/bin/python bench/idle_slot_save.py [--held 500,1000,2000] [--repeats 4] [--unified]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics

from agbench.config import ServerSettings
from agbench.live.load.level import build_prompt
from agbench.live.load.probe_client import BODY, probe_client
from agbench.live.serving.llama_server import ManagedServer
from agbench.load import RequestSpec

SHORT = 32  # the request that comes between in ``saved``


async def trial(url: str, alias: str, held: int, probe: int, saved: bool, seed: int) -> float:
    """The probe's wait before its prompt work (s)."""
    async with probe_client(url, alias) as (client, counter):
        await client.chat([{"role": "user", "content": "warm up"}], max_tokens=1, extra_body=BODY)
        messages = await build_prompt(counter, RequestSpec(0.0, held, 1), seed, "idle-held")
        await client.chat(messages, max_tokens=1, extra_body=BODY)
        if saved:
            between = await build_prompt(counter, RequestSpec(0.0, SHORT, 1), seed, "idle-between")
            await client.chat(between, max_tokens=1, extra_body=BODY)
        messages = await build_prompt(counter, RequestSpec(0.0, probe, 1), seed, "idle-probe")
        result = await client.chat(messages, max_tokens=1, extra_body=BODY)
        if result.error_class or result.ttft_s is None:
            raise SystemExit(f"probe failed: {result.error_class} {result.error}")
        return result.ttft_s - (result.prompt_ms or 0.0) / 1000.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--slots", type=int, default=4)
    parser.add_argument("--ctx-per-slot", type=int, default=4096)
    parser.add_argument("--unified", action="store_true", help="one pool of slots x ctx-per-slot cells")
    parser.add_argument("--held", type=lambda s: [int(x) for x in s.split(",")], default=[500, 1000, 2000])
    parser.add_argument("--probe", type=int, default=100, help="the probe's prompt tokens")
    parser.add_argument("--repeats", type=int, default=4)
    args = parser.parse_args()
    conditions = [(h, s) for h in args.held for s in (False, True) for _ in range(args.repeats)]
    random.Random(7).shuffle(conditions)
    waits: dict[tuple[int, bool], list[float]] = {c: [] for c in conditions}
    settings = ServerSettings(
        n_ctx=args.ctx_per_slot * args.slots,
        n_parallel=args.slots,
        kv_unified=args.unified,
        threads=args.threads,
    )
    for i, (held, saved) in enumerate(conditions):
        with ManagedServer(settings) as server:
            wait = asyncio.run(trial(server.url, server.alias, held, args.probe, saved, i))
        waits[(held, saved)].append(wait)
        print(f"held {held:5d} {'saved  ' if saved else 'changed'}: wait {wait * 1e3:6.1f} ms", flush=True)
    pool = "one unified pool" if args.unified else "a pool per slot"
    print(f"\n{args.threads} thread(s), {args.slots} slots, {pool}; a {args.probe}-token probe (medians):")
    # the two launches copied held and SHORT tokens: the difference is held - SHORT tokens' copy
    print(f"{'held':>6s} {'changed ms':>11s} {'saved ms':>9s} {'save ms':>8s} {'ms / 1,000 tokens':>18s}")
    for held in args.held:
        changed = statistics.median(waits[(held, False)]) * 1e3
        kept = statistics.median(waits[(held, True)]) * 1e3
        print(
            f"{held:6d} {changed:11.1f} {kept:9.1f} {changed - kept:8.1f} {(changed - kept) / (held - SHORT) * 1e3:18.1f}"
        )


if __name__ == "__main__":
    main()
