"""What does saving the idle slots cost the request that starts?

llama-server's ``--cache-idle-slots`` (on by default) saves every idle slot's state to the
host-memory prompt cache and clears it when a task starts (``llama_state_seq_get_data``: the
slot's cells copied out of the KV cache). The simulator charges a restore's time
(``restore_s_per_k_tokens``) but not a save's. From two agents on, nearly every launch saves the
other agents' idle slots, so if the copy costs time it delays the new request's first token
(and every other slot's next batch: the loop does it between two batches).

This measures it: a fresh server per trial (``--slots`` slots, one unified pool), ``--slots`` - 1
conversations of ``--held`` tokens each read into their slots and left idle, then a probe (a
new ``--probe``-token prompt, one output token) that lands on the never-used slot, so nothing of
its own is swapped; its launch saves and clears the others. Reported per condition: the probe's
time to first token at the client, llama.cpp's ``prompt_ms``, and the rest (TTFT - prompt_ms:
HTTP, tokenising, and any save), with the cells ``/slots`` still shows afterwards.

    .venv/bin/python bench/idle_slot_save.py [--threads 1] [--held 0,400,1200] [--repeats 4]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics

import httpx

from agbench.config import ServerSettings
from agbench.live.load.level import build_prompt
from agbench.live.load.probe_client import probe_client
from agbench.live.load.profile import BODY
from agbench.live.serving.llama_server import ManagedServer
from agbench.load import RequestSpec


async def trial(
    url: str, alias: str, slots: int, held: int, probe: int, seed: int
) -> tuple[float, float, int]:
    """(probe TTFT s, probe prompt_ms / 1000, cells the other slots hold after the probe)."""
    async with probe_client(url, alias) as (client, counter):
        await client.chat([{"role": "user", "content": "warm up"}], max_tokens=4, extra_body=BODY)
        if held:
            for k in range(slots - 1):  # one after the other: each takes a free slot and stays there
                messages = await build_prompt(counter, RequestSpec(0.0, held, 1), seed * 100 + k, "idle-save")
                await client.chat(messages, max_tokens=1, extra_body=BODY)
        messages = await build_prompt(counter, RequestSpec(0.0, probe, 1), seed * 100 + 99, "idle-probe")
        result = await client.chat(messages, max_tokens=1, extra_body=BODY)
        if result.error_class or result.ttft_s is None:
            raise SystemExit(f"probe failed: {result.error_class} {result.error}")
        async with httpx.AsyncClient(trust_env=False) as http:
            state = (await http.get(url.removesuffix("/v1") + "/slots")).json()
        others = sum(  # the other slots' prompt tokens, as masked_decode.py reads them
            int(s.get("n_prompt_tokens") or 0)
            for s in state
            if isinstance(s, dict) and s.get("id") != result.slot_id
        )
        return result.ttft_s, (result.prompt_ms or 0.0) / 1000.0, others


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--ctx", type=int, default=4096, help="unified pool cells")
    parser.add_argument("--slots", type=int, default=4)
    parser.add_argument("--held", type=lambda s: [int(x) for x in s.split(",")], default=[0, 400, 1200])
    parser.add_argument("--probe", type=int, default=100, help="the probe's prompt tokens")
    parser.add_argument("--repeats", type=int, default=4)
    args = parser.parse_args()
    conditions = [h for h in args.held for _ in range(args.repeats)]
    random.Random(7).shuffle(conditions)
    rows: dict[int, list[tuple[float, float, int]]] = {h: [] for h in args.held}
    for i, held in enumerate(conditions):
        settings = ServerSettings(
            n_ctx=args.ctx, n_parallel=args.slots, kv_unified=True, threads=args.threads
        )
        with ManagedServer(settings) as server:
            row = asyncio.run(trial(server.url, server.alias, args.slots, held, args.probe, i))
        rows[held].append(row)
        print(
            f"{args.slots - 1} idle slots x {held:5d} tokens: TTFT {row[0]:.3f} s, prompt {row[1]:.3f} s, "
            f"the other slots hold {row[2]} tokens after it",
            flush=True,
        )
    print(
        f"\n{args.threads} thread(s), {args.slots} slots, unified {args.ctx} cells; a {args.probe}-token "
        "probe after the other slots were left holding the cells below (medians):"
    )
    print(f"{'held each':>10s} {'TTFT s':>8s} {'prompt s':>9s} {'rest s':>8s} {'rest - held 0':>14s}")
    base = None
    for held in args.held:
        ttft = statistics.median(r[0] for r in rows[held])
        prompt = statistics.median(r[1] for r in rows[held])
        rest = statistics.median(r[0] - r[1] for r in rows[held])
        base = rest if base is None else base
        print(f"{held:10d} {ttft:8.3f} {prompt:9.3f} {rest:8.3f} {rest - base:+14.3f}")


if __name__ == "__main__":
    main()
