"""A follow-up prompt beside another sequence's work, measured and as the simulator prices it.

At two agents and more a live prompt is rarely alone on the server: another sequence decodes
beside it (llama.cpp puts that sequence's next token in the same batch) or another prompt
shares its batch. The server profile measures prompts alone and fresh prompts beside decoding
sequences; the agents' prompts are follow-ups on a long cached conversation. This measures
the prompt time (llama.cpp's ``prompt_ms``) of one follow-up, on a server of two slots in a
unified pool, in three conditions, shuffled and repeated:

* **alone**: two conversations of ``--context`` tokens were cached; one's follow-up adds
  ``--new`` tokens (the other, idle, is saved to the host-memory cache and cleared from the
  pool as the task starts: ``--cache-idle-slots``, llama-server's default);
* **beside decode**: the same while slot 1 decodes a long reply;
* **joint**: both conversations' follow-ups sent together (one batch carries both prompts;
  a pair read one after the other, the second arriving after the batch had started, is left
  out).

and prints, per condition, the median measured time beside what the server profile's rates
give for it with the simulator's batch rules (``sim/entities/batch_loop.py``:
``IterationsSchedule.start_batch``), and each condition's ratio to *alone*, measured and
priced, so a drift of the machine's speed since the profile cancels.

    .venv/bin/python bench/mixed_batch.py --profile calibration/reference/dev-profile/server_profile.toml \
        [--threads 1] [--context 800] [--new 140] [--repeats 5]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
from pathlib import Path
from typing import Any

from agbench.calibration.server_profile import (
    load_server_profile,
    measured_server_rates,
    recorded_calls,
    refit_server_profile,
)
from agbench.config import ServerSettings
from agbench.live.load.level import build_prompt
from agbench.live.load.probe_client import BODY, probe_client
from agbench.live.load.profile import fit_follow_up
from agbench.live.providers.chat_result import ChatResult
from agbench.live.providers.openai_compatible import ChatClient
from agbench.live.serving.llama_server import ManagedServer
from agbench.live.trajectories.sizing import TokenCounter
from agbench.load import RequestSpec
from agbench.sim.profiles import ServerRates

CONDITIONS = ("alone", "beside decode", "joint")
DECODE_REPLY = 400


class Probe:
    def __init__(self, client: ChatClient, counter: TokenCounter) -> None:
        self.client = client
        self.counter = counter
        self.n = 0

    async def send(self, messages: list[dict[str, Any]], max_tokens: int) -> ChatResult:
        # slots chosen by the server (prompt similarity and its host-memory cache): pinning
        # one with ``id_slot`` in a unified pool loses the other conversations (measured: a
        # 300-token prompt sent again to its own pinned slot after another's found 0 cached)
        result = await self.client.chat(messages, max_tokens=max_tokens, extra_body=BODY)
        if result.error_class:
            raise SystemExit(f"request failed: {result.error_class} {result.error}")
        return result

    async def conversation(self, context: int) -> list[dict[str, Any]]:
        """A fresh conversation of ``context`` tokens, cached on a slot of its own."""
        self.n += 1
        messages = await build_prompt(self.counter, RequestSpec(0.0, context, 1), self.n, "mixed-batch")
        reply = await self.send(messages, 1)
        return [*messages, {"role": "assistant", "content": reply.content or "ok"}]

    async def follow_up(self, conv: list[dict[str, Any]], context: int, new: int) -> list[dict[str, Any]]:
        messages = [dict(m) for m in conv]
        await fit_follow_up(self.counter, messages, context + new, f"mixed|{self.n}|{len(messages)}")
        return messages

    async def one(self, condition: str, context: int, new: int) -> dict[str, float]:
        a = await self.conversation(context)
        b = await self.conversation(context)
        fa = await self.follow_up(a, context, new)
        if condition == "alone":
            r = await self.send(fa, 1)
            # the other, idle conversation was cleared from the pool as this task started
            return {
                "prompt_ms": r.prompt_ms or 0.0,
                "new": r.prompt_tokens - r.cached_tokens,
                "cached": r.cached_tokens,
                "other": 0.0,
                "other_decoded": 0.0,
            }
        if condition == "beside decode":
            bg = asyncio.create_task(self.send(b, DECODE_REPLY))
            await asyncio.sleep(1.0)
            r = await self.send(fa, 1)
            done = await bg
            tau = (done.predicted_ms or 0.0) / max(1, done.completion_tokens) / 1000.0
            made = (r.t_start - done.t_start - (done.ttft_s or 0.0)) / tau if tau > 0 else 0.0
            return {
                "prompt_ms": r.prompt_ms or 0.0,
                "new": r.prompt_tokens - r.cached_tokens,
                "cached": r.cached_tokens,
                "other": done.prompt_tokens,
                "other_decoded": max(0.0, made),
            }
        fb = await self.follow_up(b, context, new)
        ra, rb = await asyncio.gather(self.send(fa, 1), self.send(fb, 1))
        # one batch carried both only if they were answered together; a request that arrived
        # after the batch had started waits for all of it and is read in the next one
        pa, pb = ra.prompt_ms or 0.0, rb.prompt_ms or 0.0
        apart_s = abs((ra.ttft_s or 0.0) - (rb.ttft_s or 0.0))
        return {
            "prompt_ms": max(pa, pb),
            "one_batch": float(apart_s < 0.25 * max(pa, pb) / 1000.0),
            "new": ra.prompt_tokens - ra.cached_tokens,
            "cached": ra.cached_tokens,
            "other": float(rb.cached_tokens),
            "other_new": float(rb.prompt_tokens - rb.cached_tokens),
        }


def priced_ms(rates: ServerRates, condition: str, m: dict[str, float]) -> float:
    """The simulator's price of the measured call's prompt: one batch, priced as
    ``IterationsSchedule.start_batch`` prices it (``ServerRates.prompt_batch_s``)."""
    new, cached, other = m["new"], m["cached"], m["other"]
    if condition == "joint":
        tokens = new + m["other_new"]
        # the token-weighted context of the batch's prompt tokens, both conversations' cells
        own = (cached * new + other * m["other_new"] + (new**2 + m["other_new"] ** 2) / 2.0) / tokens
        base, span = rates.batch_base_s(0, 0.0, prompt=True), cached + other
    else:
        tokens, own = new, cached + new / 2.0
        if condition == "alone":  # the idle conversation was cleared from the pool
            base, span = rates.batch_base_s(0, 0.0, prompt=True), cached
        else:
            other_cells = other + m["other_decoded"]
            base, span = rates.batch_base_s(1, other_cells, prompt=True), cached + other_cells
    return 1000.0 * rates.prompt_batch_s(base, tokens, own, span + tokens / 2.0 - own)


async def run(
    args: argparse.Namespace, url: str, alias: str, order: list[str]
) -> list[tuple[str, dict[str, float]]]:
    async with probe_client(url, alias) as (client, counter):
        probe = Probe(client, counter)
        await probe.send([{"role": "user", "content": "warm up"}], 8)
        return [(c, await probe.one(c, args.context, args.new)) for c in order]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--profile", type=Path, required=True, help="a server_profile.toml (refitted from its calls)"
    )
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--ctx", type=int, default=4096, help="unified pool cells")
    parser.add_argument("--context", type=int, default=800, help="each conversation's cached tokens")
    parser.add_argument("--new", type=int, default=140, help="the follow-up's new tokens")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:  # the recorded calls read with this version's fits
        profile = args.profile
        if recorded_calls(profile) is not None:
            profile = refit_server_profile(profile, Path(tmp) / "server_profile.toml")
        rates = measured_server_rates(load_server_profile(profile)["rates"])
    settings = ServerSettings(n_ctx=args.ctx, n_parallel=2, kv_unified=True, threads=args.threads)
    order = [c for c in CONDITIONS for _ in range(args.repeats)]
    random.Random(11).shuffle(order)
    with ManagedServer(settings) as server:
        rows = asyncio.run(run(args, server.url, server.alias, order))
    measured: dict[str, list[float]] = {c: [] for c in CONDITIONS}
    priced: dict[str, list[float]] = {c: [] for c in CONDITIONS}
    for condition, m in rows:
        if condition == "joint" and not m["one_batch"]:
            print(f"{condition:14s} the two were read one after the other: left out", flush=True)
            continue
        measured[condition].append(m["prompt_ms"])
        priced[condition].append(priced_ms(rates, condition, m))
        print(
            f"{condition:14s} measured {m['prompt_ms']:8.1f} ms  priced {priced[condition][-1]:8.1f} ms  "
            f"(new {m['new']:.0f}, cached {m['cached']:.0f})",
            flush=True,
        )
    print(
        f"\n{args.threads} thread(s), two slots, unified {args.ctx} cells, conversations of {args.context} "
        f"tokens, follow-ups of {args.new}; profile {args.profile}"
    )
    base_m, base_p = statistics.median(measured["alone"]), statistics.median(priced["alone"])
    for c in CONDITIONS:
        mm, pp = statistics.median(measured[c]), statistics.median(priced[c])
        print(
            f"  {c:14s} measured {mm:8.1f} ms ({mm / base_m:5.2f} x alone)   priced {pp:8.1f} ms "
            f"({pp / base_p:5.2f} x alone)   measured / priced {mm / pp:5.2f}"
        )


if __name__ == "__main__":
    main()
