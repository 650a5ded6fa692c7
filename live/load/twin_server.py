"""The twin: a second llama-server of the same settings on the same cores.

A hybrid sweep runs the local server and the cloud stand-in at once, each with the sweep's
threads. Where their threads together need more than every core, each slows the other, and by
very different factors for decode and prompt work (docs/design.md, "Crowded threads"). The
profile measures that beside a twin kept decoding (``Profiler.twin_decode``, ``cpu_twin``),
and the bench scripts that study it start one the same way; this module holds what they share:
when a twin is needed, how it is kept busy, and the record of where both servers' threads ran.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from agbench.live.load.probe_client import BODY
from agbench.live.monitors.thread_placement import PlacementSampler
from agbench.live.providers.openai_compatible import ChatClient
from agbench.usable_cores import available_cores

if TYPE_CHECKING:
    from agbench.live.load.profile import ProfileOptions

#: Output tokens of each of the twin's requests (it sends them back to back while it is kept busy).
TWIN_DECODE_TOKENS = 64

#: The twin probe's placement record: the sampler, the profiled server's pid, the twin's.
TwinPlacement = tuple[PlacementSampler, int, int]


def needs_twin(options: ProfileOptions) -> bool:
    """Whether the twin probe runs: a managed server (a twin of an external one cannot be
    started) whose threads and a twin's do not fit on the cores together."""
    return options.local_url is None and 2 * options.server.threads > available_cores()


@contextlib.asynccontextmanager
async def twin_decoding(twin: ChatClient, prompt: list[dict[str, Any]]) -> AsyncIterator[None]:
    """While inside, ``twin`` (a second server on the same cores) decodes replies to ``prompt``
    back to back, as the other server of a hybrid sweep does; ``prompt`` is cached first, and
    the twin has been decoding for a moment when the block starts."""
    await twin.chat(prompt, max_tokens=1, extra_body=BODY)
    busy = asyncio.Event()

    async def keep_busy() -> None:
        while True:
            busy.set()
            await twin.chat(prompt, max_tokens=TWIN_DECODE_TOKENS, extra_body=BODY)

    task = asyncio.create_task(keep_busy())
    try:
        await busy.wait()
        await asyncio.sleep(0.3)  # the twin is decoding
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


__all__ = ["TWIN_DECODE_TOKENS", "TwinPlacement", "needs_twin", "twin_decoding"]
