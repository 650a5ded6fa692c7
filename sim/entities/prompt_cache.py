"""llama-server's host-memory prompt cache (``--cache-ram``, on by default with 8 GiB).

Why it matters: without it, an agent whose slot was taken by another conversation between two
turns would re-process its whole history; with it, llama-server saved that slot's state to RAM
when the slot was reassigned and restores it on whichever slot the agent's next turn lands. At
concurrency above the slot count (or with ``--cache-idle-slots``, which saves every idle slot
whenever a task starts, and in a unified pool clears it) this decides how much prompt work a
turn costs and how much of a unified KV pool idle conversations hold. A save copies the slot's
state (``llama_state_seq_get_data``) on the server's loop, so it costs the launch time
(``ServerRates.save_s_per_k_tokens``) unless the cache already holds those tokens.

The rules are llama.cpp's (tools/server/server-task.cpp, ``server_prompt_cache::alloc``,
``::load`` and ``::update``; tools/server/server-context.cpp, ``get_available_slot``), applied
to the simulator's abstract prompts (a conversation's prompts are prefixes of one another;
different conversations share only their system prompt):

* save: a state already contained in a cached one is not stored again; cached states that are
  prefixes of the new one are dropped; the oldest states are evicted beyond the memory limit
  (always keeping one);
* load: among cached states that would keep at least a quarter of their tokens
  (``f_keep >= 0.25``), take the one that beats the slot's own content on both kept fraction
  and similarity to the new prompt; the restored state leaves the cache. Restoring places all
  of the state's cells at once (``llama_state_seq_set_data``), so on a pool without that much
  room it fails: the state stays cached and the slot starts empty (``prompt_clear``), which
  means a whole re-prefill. Measured here: 2 slots, a unified 1,024-cell pool, a 609-token
  state and another slot idle with 439 cells: "failed to find 609 available cells", then all
  630 prompt tokens processed.
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


#: What ``PromptCache.load`` returns when the best state does not fit the pool's free cells.
RESTORE_FAILED = CachedPrompt(None, None, 0, 0)


class PromptCache:
    """The RAM tier: a list of saved states, oldest first, bounded in tokens."""

    def __init__(self, limit_tokens: float) -> None:
        self.limit_tokens = limit_tokens if limit_tokens > 0 else math.inf
        # Saved states by insertion number (dicts keep insertion order: oldest first), and
        # indexed by conversation and system prompt: a prompt shares a prefix only with the
        # states of its own conversation or system prompt, so save and load look at those
        # alone instead of scanning every state (same results, same order).
        self._states: dict[int, CachedPrompt] = {}
        self._by_conv: dict[object, dict[int, CachedPrompt]] = {}
        self._by_sys: dict[object, dict[int, CachedPrompt]] = {}
        self._next = 0
        self._tokens = 0
        self.saves = 0
        self.restores = 0
        self.evictions = 0
        self.failed_restores = 0

    @property
    def states(self) -> list[CachedPrompt]:
        """The saved states, oldest first."""
        return list(self._states.values())

    @property
    def n_tokens(self) -> int:
        return self._tokens

    def _related(self, conv: object, sys_key: object) -> list[tuple[int, CachedPrompt]]:
        """The states that can share a prefix with a prompt of ``conv`` / ``sys_key`` (every
        other one shares none: ``shared_prefix`` is 0), oldest first."""
        found = dict(self._by_conv.get(conv, {}))
        if sys_key is not None:
            found.update(self._by_sys.get(sys_key, {}))
        return sorted(found.items(), key=lambda kv: kv[0])

    def _add(self, state: CachedPrompt) -> None:
        seq, self._next = self._next, self._next + 1
        self._states[seq] = state
        self._by_conv.setdefault(state.conv, {})[seq] = state
        if state.sys_key is not None:
            self._by_sys.setdefault(state.sys_key, {})[seq] = state
        self._tokens += state.tokens

    def _remove(self, seq: int) -> CachedPrompt:
        state = self._states.pop(seq)
        for index, key in ((self._by_conv, state.conv), (self._by_sys, state.sys_key)):
            group = index.get(key)
            if group is not None and group.pop(seq, None) is not None and not group:
                del index[key]
        self._tokens -= state.tokens
        return state

    def save(self, state: CachedPrompt) -> int:
        """Store a slot's state (``server_prompt_cache::alloc`` + ``update``); the tokens
        copied (0: already held, whole, by a cached state, so llama.cpp copies nothing)."""
        if state.tokens <= 0:
            return 0
        related = self._related(state.conv, state.sys_key)
        for _, cached in related:
            if (
                shared_prefix(cached, state.conv, state.sys_key, state.sys_tokens, state.tokens)
                == state.tokens
            ):
                return 0  # already held, whole, by a cached state
        for seq, s in related:
            if shared_prefix(state, s.conv, s.sys_key, s.sys_tokens, s.tokens) == s.tokens:
                self._remove(seq)
        self._add(state)
        self.saves += 1
        while len(self._states) > 1 and self._tokens > self.limit_tokens:
            self._remove(next(iter(self._states)))
            self.evictions += 1
        return state.tokens

    def load(
        self,
        base: CachedPrompt | None,
        conv: object,
        sys_key: object,
        sys_tokens: int,
        tokens: int,
        room: float = math.inf,
    ) -> CachedPrompt | None:
        """The state to restore for a prompt into a slot holding ``base`` (None: keep ``base``).

        ``room``: the cells the pool can give the slot; a best state larger than that is not
        restored and stays cached (the caller then clears the slot: ``RESTORE_FAILED``)."""
        lcp = shared_prefix(base, conv, sys_key, sys_tokens, tokens) if base is not None else 0
        f_keep_best = lcp / base.tokens if base is not None and base.tokens > 0 else -1.0
        sim_best = lcp / tokens if tokens > 0 else 0.0
        best: int | None = None
        for i, state in self._related(conv, sys_key):
            lcp_cur = shared_prefix(state, conv, sys_key, sys_tokens, tokens)
            f_keep = lcp_cur / state.tokens
            sim = lcp_cur / tokens if tokens > 0 else 0.0
            if f_keep < MIN_F_KEEP:
                continue
            if f_keep_best < f_keep and sim_best < sim:
                f_keep_best, sim_best, best = f_keep, sim, i
        if best is None:
            return None
        if self._states[best].tokens > room:
            self.failed_restores += 1
            return RESTORE_FAILED
        self.restores += 1
        return self._remove(best)


__all__ = ["MIN_F_KEEP", "RESTORE_FAILED", "CachedPrompt", "PromptCache", "shared_prefix"]
