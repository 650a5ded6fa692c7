"""Conversation text sized to exact token counts, measured by the serving model's tokenizer.

The replay agent's requests must carry as many prompt tokens as the trajectory recorded, as
the *server* counts them (chat template included), so the server's prefill work, prefix cache
and KV pool behave as for the recorded agent. Text is the real text where the replay has some
(the task instruction, a tool's real output, the agent's own system prompt), cut to fit, then
padded with neutral filler: common English words drawn from a seeded generator, each one
token with its leading space in the usual BPE vocabularies, so a filler of n words is close to
n tokens. The size is then measured exactly and corrected:

- llama.cpp servers (``/apply-template`` + ``/tokenize``) give the exact prompt as the chat
  endpoint renders it; a counter adjusts the filler until the whole prompt hits the target
  (usually one correction);
- other servers (a real cloud API) cannot be asked: sizes are estimated at ``CHARS_PER_TOKEN``
  and the counter says ``exact = False`` so the replay can say so.

The filler's words-per-token ratio is measured once per server and cached (``calibrate``).
"""

from __future__ import annotations

import asyncio
import hashlib
import random
from dataclasses import dataclass, field
from typing import Any

import httpx

#: Common words; with a leading space each is a single token for GPT-2/Llama/Qwen/SmolLM
#: style BPE vocabularies (calibration measures the real ratio anyway).
_FILLER_TEXT = (
    "the of and to in is for on that with as by at from this be are was or an it not have "
    "has but all can more one will about which their there other into time only new some "
    "these when than its also after first two like over such most then any where work way "
    "part place made well back even much good each same long both under still while"
)
FILLER_WORDS = tuple(_FILLER_TEXT.split())
CHARS_PER_TOKEN = 4.0  # estimate where the server cannot tokenize
ESTIMATED_MESSAGE_OVERHEAD = 5  # template tokens around one message, for estimates
MAX_FIT_ROUNDS = 6


def filler(n_words: int, key: str) -> str:
    """``n_words`` neutral words, the same for the same key (each with a leading space)."""
    if n_words <= 0:
        return ""
    seed = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")
    rng = random.Random(seed)
    return "".join(" " + rng.choice(FILLER_WORDS) for _ in range(n_words))


class TokenCounter:
    """Counts tokens as one server does; ``exact`` says whether it really asks the server."""

    exact = False
    describe = "estimate"

    def __init__(self) -> None:
        self.words_per_token = 1.0

    async def count_text(self, text: str) -> int:
        return max(0, round(len(text) / CHARS_PER_TOKEN))

    async def count_prompt(self, messages: list[dict[str, Any]]) -> int:
        total = 0
        for message in messages:
            total += ESTIMATED_MESSAGE_OVERHEAD + await self.count_text(str(message.get("content") or ""))
        return total + 3  # the assistant header the server appends

    async def calibrate(self) -> None:
        text = filler(400, "calibration")
        tokens = await self.count_text(text)
        self.words_per_token = 400 / max(1, tokens)


class LlamaCppCounter(TokenCounter):
    """Exact counts from a llama.cpp server's ``/apply-template`` and ``/tokenize``."""

    exact = True
    describe = "llama.cpp /tokenize"

    def __init__(self, base_url: str, client: httpx.AsyncClient) -> None:
        super().__init__()
        self.base_url = base_url.rstrip("/")
        self._client = client

    async def count_text(self, text: str) -> int:
        r = await self._client.post(self.base_url + "/tokenize", json={"content": text})
        r.raise_for_status()
        return len(r.json()["tokens"])

    async def count_prompt(self, messages: list[dict[str, Any]]) -> int:
        r = await self._client.post(self.base_url + "/apply-template", json={"messages": messages})
        r.raise_for_status()
        return await self.count_text(str(r.json()["prompt"]))


@dataclass
class CounterCache:
    """One counter per server URL, calibrated once (replays of many tasks share it)."""

    counters: dict[str, TokenCounter] = field(default_factory=dict)
    _client: httpx.AsyncClient | None = None
    _loop: asyncio.AbstractEventLoop | None = None

    def client(self) -> httpx.AsyncClient:
        # An httpx client belongs to the event loop it was made in; a runner may use several.
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client = httpx.AsyncClient(timeout=httpx.Timeout(60.0, connect=5.0), trust_env=False)
            self._loop = loop
            for counter in self.counters.values():
                if isinstance(counter, LlamaCppCounter):
                    counter._client = self._client
        return self._client

    async def counter(self, base_url: str | None) -> TokenCounter:
        key = base_url or ""
        self.client()  # rebinds cached counters to this loop's client
        if key not in self.counters:
            counter: TokenCounter = TokenCounter()
            if base_url:
                candidate = LlamaCppCounter(base_url, self.client())
                try:
                    await candidate.count_prompt([{"role": "user", "content": "probe"}])
                    counter = candidate
                except (httpx.HTTPStatusError, KeyError, TypeError, ValueError):
                    pass  # it answers, but not as llama.cpp does: estimate
                # A transport error (server down) propagates: a guess cached for the whole run
                # because of one refused connection would silently lose the exact sizing.
            await counter.calibrate()
            self.counters[key] = counter
        return self.counters[key]

    async def aclose(self) -> None:
        if self._client is not None and self._loop is asyncio.get_running_loop():
            await self._client.aclose()
        self._client = None
        self._loop = None


async def cut_to_tokens(counter: TokenCounter, text: str, tokens: int) -> str:
    """The longest head of ``text`` of at most ``tokens`` tokens (a few measurements)."""
    if tokens <= 0 or not text:
        return ""
    n = await counter.count_text(text)
    if n <= tokens:
        return text
    keep = len(text)
    for _ in range(MAX_FIT_ROUNDS):
        keep = max(0, int(keep * tokens / max(1, n)) - 1)
        n = await counter.count_text(text[:keep])
        if n <= tokens:
            break
    return text[:keep] if n <= tokens else ""


async def sized_text(counter: TokenCounter, real: str, tokens: int, key: str) -> str:
    """Text of about ``tokens`` tokens: ``real`` (cut if too long), then filler."""
    head = await cut_to_tokens(counter, real, tokens)
    used = await counter.count_text(head) if head else 0
    return head + filler(round((tokens - used) * counter.words_per_token), key)


async def fit_last_message(
    counter: TokenCounter,
    messages: list[dict[str, Any]],
    target: int,
    real: str,
    key: str,
) -> int:
    """Set the last message's content to ``real`` + filler so the whole prompt is ``target``
    tokens as the server counts it; returns the count reached (``target`` unless the fixed
    part already exceeds it, or the server is not exact)."""
    last = messages[-1]
    last["content"] = real
    base = await counter.count_prompt(messages)
    if base > target and real:
        # The real text alone overshoots: cut it (keeping at least the message framing).
        real_tokens = await counter.count_text(real)
        real = await cut_to_tokens(counter, real, max(0, real_tokens - (base - target)))
        last["content"] = real
        base = await counter.count_prompt(messages)
    words = max(0, round((target - base) * counter.words_per_token))
    reached = base
    for _ in range(MAX_FIT_ROUNDS):
        last["content"] = real + filler(words, key)
        reached = await counter.count_prompt(messages)
        if reached == target or not counter.exact:
            break
        step = round((target - reached) * counter.words_per_token) or (1 if target > reached else -1)
        new_words = max(0, words + step)
        if new_words == words:
            break
        words = new_words
    if reached > target and counter.exact and words > 0:
        # Settle on the largest filler not over the target (word/token merges can oscillate).
        while words > 0 and reached > target:
            words -= 1
            last["content"] = real + filler(words, key)
            reached = await counter.count_prompt(messages)
    return reached


__all__ = [
    "CHARS_PER_TOKEN",
    "FILLER_WORDS",
    "CounterCache",
    "LlamaCppCounter",
    "TokenCounter",
    "cut_to_tokens",
    "filler",
    "fit_last_message",
    "sized_text",
]
