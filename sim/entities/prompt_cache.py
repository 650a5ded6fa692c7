"""llama-server's host-memory prompt cache (``--cache-ram``, on by default with 8 GiB).

Why it matters: without it, an agent whose slot was taken by another conversation between two
turns would re-process its whole history; with it, llama-server saved that slot's state to RAM
when the slot was reassigned and restores it on whichever slot the agent's next turn lands. At
concurrency above the slot count (or with ``--cache-idle-slots``, which saves and clears every
idle slot of a unified pool whenever a task starts) this decides how much prompt work a turn
costs and how much of a unified KV pool idle conversations hold.

The rules are llama.cpp's (tools/server/server-task.cpp, ``server_prompt_cache::alloc``,
``::load`` and ``::update``; tools/server/server-context.cpp, ``get_available_slot``), applied
to the simulator's abstract prompts (a conversation's prompts are prefixes of one another;
different conversations share only their system prompt):

* save: a state already contained in a cached one is not stored again; cached states that are
  prefixes of the new one are dropped; the oldest states are evicted beyond the memory limit
  (always keeping one);
* load: among cached states that would keep at least a quarter of their tokens
  (``f_keep >= 0.25``), take the one that beats the slot's own content on both kept fraction
  and similarity to the new prompt; the restored state leaves the cache.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: llama.cpp skips cached states that would keep less than this fraction ("don't trash large prompts").
MIN_F_KEEP = 0.25


@dataclass(frozen=True)
class CachedPrompt:
    """A saved slot state: whose conversation, its system prompt, and how many tokens."""

    conv: object
    sys_key: object
    sys_tokens: int
    tokens: int


def shared_prefix(a: CachedPrompt, conv: object, sys_key: object, sys_tokens: int, tokens: int) -> int:
    """Longest common prefix of a cached state and a prompt, in tokens."""
    if a.tokens <= 0 or tokens <= 0:
        return 0
    if a.conv == conv:
        return min(a.tokens, tokens)
    if sys_key is not None and a.sys_key == sys_key:
        return min(a.tokens, a.sys_tokens, sys_tokens, tokens)
    return 0


class PromptCache:
    """The RAM tier: a list of saved states, oldest first, bounded in tokens."""

    def __init__(self, limit_tokens: float) -> None:
        self.limit_tokens = limit_tokens if limit_tokens > 0 else math.inf
        self.states: list[CachedPrompt] = []
        self.saves = 0
        self.restores = 0
        self.evictions = 0

    @property
    def n_tokens(self) -> int:
        return sum(s.tokens for s in self.states)

    def save(self, state: CachedPrompt) -> None:
        """Store a slot's state (``server_prompt_cache::alloc`` + ``update``)."""
        if state.tokens <= 0:
            return
        for cached in self.states:
            if (
                shared_prefix(cached, state.conv, state.sys_key, state.sys_tokens, state.tokens)
                == state.tokens
            ):
                return  # already held, whole, by a cached state
        self.states = [
            s
            for s in self.states
            if shared_prefix(state, s.conv, s.sys_key, s.sys_tokens, s.tokens) != s.tokens
        ]
        self.states.append(state)
        self.saves += 1
        while len(self.states) > 1 and self.n_tokens > self.limit_tokens:
            self.states.pop(0)
            self.evictions += 1

    def load(
        self, base: CachedPrompt | None, conv: object, sys_key: object, sys_tokens: int, tokens: int
    ) -> CachedPrompt | None:
        """The state to restore for a prompt into a slot holding ``base`` (None: keep ``base``)."""
        lcp = shared_prefix(base, conv, sys_key, sys_tokens, tokens) if base is not None else 0
        f_keep_best = lcp / base.tokens if base is not None and base.tokens > 0 else -1.0
        sim_best = lcp / tokens if tokens > 0 else 0.0
        best: int | None = None
        for i, state in enumerate(self.states):
            lcp_cur = shared_prefix(state, conv, sys_key, sys_tokens, tokens)
            f_keep = lcp_cur / state.tokens
            sim = lcp_cur / tokens if tokens > 0 else 0.0
            if f_keep < MIN_F_KEEP:
                continue
            if f_keep_best < f_keep and sim_best < sim:
                f_keep_best, sim_best, best = f_keep, sim, i
        if best is None:
            return None
        self.restores += 1
        return self.states.pop(best)


__all__ = ["MIN_F_KEEP", "CachedPrompt", "PromptCache", "shared_prefix"]
