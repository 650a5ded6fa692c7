"""Do two CPU servers that share too few cores slow evenly, or does one run while the other waits?

In the hybrid architectures the local server and the cloud stand-in are two llama-servers
whose threads together need more cores than the machine has. The simulator shares the cores
between them evenly (both slow by the profile's twin factor). The profile's twin probe
measures only the profiled server while its twin decodes; this script streams from both at
once and timestamps every token, in two ways:

* **together** (default): both start at once and decode ``--tokens``; per tenth of the time
  both were decoding, each one's speed relative to alone. Uneven sharing shows as one server
  fast while the other is near zero.
* **onset** (``--stagger S``): the first server decodes; S seconds later the second (the
  newcomer, its prompt cached) decodes ``--newcomer-tokens``. What a hybrid agent's call meets
  when the other server is already busy: the newcomer's speed (from llama-server's own
  ``timings``) and the incumbent's over the same span. A newcomer stalled behind an incumbent
  that keeps its cores shows as a low first figure and a high second one.

Where the threads run (``--placement``): ``free`` leaves them to the kernel and reports, for
each server, the share of the together span (sampled every 100 ms) in which its two compute
threads last ran on the same core; ``strict`` starts both servers with llama.cpp's
``--cpu-strict 1`` (``ServerSettings.cpu_strict``: thread i on core i, so each core holds one
thread of each server); ``paired`` pins each server's threads to one core of its own for the
together span (what ``free`` drifts into), its speed alone measured before the pinning, and
16 tokens each instead of ``--tokens`` (pinned that way a server runs at a few thousandths).

    .venv/bin/python bench/twin_progress.py [--threads 2] [--tokens 160] [--trials 6]
    .venv/bin/python bench/twin_progress.py --placement strict [--trials 6]
    .venv/bin/python bench/twin_progress.py --stagger 1.5 [--newcomer-tokens 60] [--trials 8]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from agbench.config import ServerSettings
from agbench.live.monitors.thread_placement import PlacementSampler, busiest_threads
from agbench.live.serving.llama_server import ManagedServer
from agbench.usable_cores import usable_cores

PROMPT = [{"role": "user", "content": "Write a long story about a lighthouse keeper and a storm."}]


@dataclass
class Stream:
    stamps: list[float] = field(default_factory=list)  # arrival (perf_counter) of each token
    timings: dict[str, Any] = field(default_factory=dict)  # llama-server's own, from the last chunk

    @property
    def ms_per_token(self) -> float:
        """llama-server's own decode time per token for this answer."""
        return float(self.timings.get("predicted_per_token_ms") or "nan")


async def stream(server: ManagedServer, tokens: int) -> Stream:
    """One streamed chat completion of ``tokens`` tokens, on a fresh connection (llama-server
    closes one after every streamed answer)."""
    body = {
        "model": server.alias,
        "messages": PROMPT,
        "max_tokens": tokens,
        "stream": True,
        "ignore_eos": True,
        "temperature": 0.0,
        "cache_prompt": True,
    }
    out = Stream()
    async with (
        httpx.AsyncClient(timeout=600.0) as http,
        http.stream("POST", server.url + "/v1/chat/completions", json=body) as response,
    ):
        response.raise_for_status()
        async for line in response.aiter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            chunk = json.loads(line[6:])
            out.timings = chunk.get("timings") or out.timings
            choices = chunk.get("choices") or []
            if choices and (choices[0].get("delta") or {}).get("content"):
                out.stamps.append(time.perf_counter())
    return out


def tokens_in(s: Stream, lo: float, hi: float) -> int:
    return sum(1 for t in s.stamps if lo < t <= hi)


@contextlib.contextmanager
def pinned_apart(servers: tuple[ManagedServer, ManagedServer]) -> Iterator[None]:
    """Each server's compute threads on one core of its own (``paired``), undone afterwards."""
    everywhere = usable_cores()
    tids = [[int(p.split("/")[-2]) for p in busiest_threads(s.pid or 0)] for s in servers]
    for core, server in enumerate(tids):
        for tid in server:
            os.sched_setaffinity(tid, {everywhere[core % len(everywhere)]})
    try:
        yield
    finally:
        for tid in (t for server in tids for t in server):
            with contextlib.suppress(ProcessLookupError):
                os.sched_setaffinity(tid, set(everywhere))


async def together(servers: tuple[ManagedServer, ManagedServer], tokens: int, placement: str) -> str:
    alone = [(await stream(s, 48)).ms_per_token / 1e3 for s in servers]
    with (
        pinned_apart(servers) if placement == "paired" else contextlib.nullcontext(),
        PlacementSampler([s.pid or 0 for s in servers]) as sampler,
    ):
        t0 = time.time()  # the sampler's clock (the tokens' is perf_counter)
        a, b = await asyncio.gather(*(stream(s, tokens) for s in servers))
        t1 = time.time()
    start, end = max(a.stamps[0], b.stamps[0]), min(a.stamps[-1], b.stamps[-1])
    span = end - start
    speeds = [tokens_in(x, start, end) * alone[i] / span for i, x in enumerate((a, b))]
    stacked = [sampler.stacked_share(s.pid or 0, t0, t1) or 0.0 for s in servers]
    windows = []
    for k in range(10):
        lo, hi = start + span * k / 10, start + span * (k + 1) / 10
        windows.append(
            "/".join(f"{tokens_in(x, lo, hi) * alone[i] / (hi - lo):.2f}" for i, x in enumerate((a, b)))
        )
    return (
        f"both decoding {span:.1f} s: speed {speeds[0]:.3f} / {speeds[1]:.3f} of alone; "
        f"threads stacked on one core {stacked[0]:.2f} / {stacked[1]:.2f} of the time\n"
        f"   per tenth: {'  '.join(windows)}"
    )


async def onset(servers: tuple[ManagedServer, ManagedServer], stagger: float, tokens: int) -> str:
    incumbent, newcomer = servers
    alone = (await stream(incumbent, 48)).ms_per_token / 1e3
    await stream(newcomer, 48)  # its prompt cached

    async def later() -> Stream:
        await asyncio.sleep(stagger)
        return await stream(newcomer, tokens)

    first, second = await asyncio.gather(stream(incumbent, 20 * tokens), later())
    lo, hi = second.stamps[0], second.stamps[-1]
    ms = second.ms_per_token
    return (
        f"newcomer {len(second.stamps)} tokens in {hi - lo:.2f} s ({ms:.0f} ms/token): speed "
        f"{alone * 1e3 / ms:.3f}; incumbent over the same span: {tokens_in(first, lo, hi)} tokens, "
        f"speed {tokens_in(first, lo, hi) * alone / (hi - lo):.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--tokens", type=int, default=160, help="each server's tokens (together)")
    parser.add_argument(
        "--stagger", type=float, default=None, help="onset: seconds before the newcomer starts"
    )
    parser.add_argument("--newcomer-tokens", type=int, default=60)
    parser.add_argument("--trials", type=int, default=6)
    parser.add_argument("--ctx", type=int, default=4096)
    parser.add_argument(
        "--placement", choices=("free", "strict", "paired"), default="free", help="where the threads run"
    )
    args = parser.parse_args()
    settings = ServerSettings(
        n_ctx=args.ctx,
        n_parallel=1,
        kv_unified=True,
        threads=args.threads,
        cpu_strict=args.placement == "strict",
    )
    with ManagedServer(settings) as first, ManagedServer(settings) as second:
        for n in range(args.trials):
            if args.stagger is None:
                tokens = args.tokens if args.placement != "paired" else 16
                line = asyncio.run(together((first, second), tokens, args.placement))
            else:
                line = asyncio.run(onset((first, second), args.stagger, args.newcomer_tokens))
            print(f"{time.strftime('%H:%M:%S')} {args.placement} trial {n}: {line}", flush=True)


if __name__ == "__main__":
    main()
