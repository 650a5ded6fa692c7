"""A client for probing one llama-server, with the server's own token counter.

A probe measures what one request costs, so its client never retries (a retried request would
be timed twice), and it builds prompts of exact token counts, so it needs the server's own
tokenizer (``/tokenize``). ``agbench profile-server`` and the bench scripts that probe a server
all open the two together and must close both, whatever the probe raised.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from agbench.live.providers.openai_compatible import ChatClient
from agbench.live.trajectories.sizing import CounterCache, TokenCounter

#: The body every probe request carries: no stop at the end-of-sequence token (a reply is as
#: long as asked), greedy decoding, and the prompt kept in the slot's cache for a follow-up.
BODY = {"ignore_eos": True, "temperature": 0.0, "cache_prompt": True}


@asynccontextmanager
async def probe_client(url: str, alias: str) -> AsyncIterator[tuple[ChatClient, TokenCounter]]:
    """``(client, counter)`` for the server at ``url`` (``.../v1``) serving ``alias``; both are
    closed on exit."""
    counters = CounterCache()
    client = ChatClient(url, alias, max_retries=0)
    try:
        yield client, await counters.counter(url)
    finally:
        await client.aclose()
        await counters.aclose()
