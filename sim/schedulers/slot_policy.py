"""Which idle slot a new request gets: this decides whether an agent's prefix cache survives.

``llama-cpp`` is what llama-server does (server.cpp, ``get_available_slot``): the idle slot
whose cached tokens share the longest prefix with the prompt, if that prefix is more than
``slot_prompt_similarity`` of the prompt; otherwise the least recently used idle slot, ties
(never-used slots) going to the highest index as llama.cpp's ``<=`` comparison has it. Since
every task of an architecture starts with the same system prompt, a new task's first turn
can land on a slot another agent is still using between turns; its history then survives only
in llama-server's RAM prompt cache (entities/prompt_cache.py).
``sticky`` is a what-if policy: a conversation keeps its slot; new ones take the LRU slot.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agbench.errors import AgbenchError


@dataclass(eq=False)
class Slot:
    index: int
    conv: object = None  # conversation whose tokens the slot holds
    sys_key: object = None  # identity of that conversation's system prompt
    sys_tokens: int = 0
    tokens: int = 0  # cached tokens (prompt + generated) of that conversation
    last_used: float = -1.0
    busy: bool = False


def common_prefix(slot: Slot, conv: object, sys_key: object, sys_tokens: int, prompt_tokens: int) -> int:
    """Tokens of a new prompt the slot already holds (same conversation, or same system prompt)."""
    if slot.tokens <= 0:
        return 0
    if slot.conv == conv:
        return min(slot.tokens, prompt_tokens)
    if sys_key is not None and slot.sys_key == sys_key:
        return min(slot.tokens, slot.sys_tokens, sys_tokens, prompt_tokens)
    return 0


SlotChooser = Callable[[Sequence[Slot], object, object, int, int, float], Slot]


def llama_cpp_policy(
    idle: Sequence[Slot],
    conv: object,
    sys_key: object,
    sys_tokens: int,
    prompt_tokens: int,
    similarity: float,
) -> Slot:
    best: Slot | None = None
    best_len = 0
    lru: Slot | None = None
    for slot in idle:  # common_prefix() inlined, and the LRU slot found in the same pass
        tokens = slot.tokens
        if tokens > 0:
            if slot.conv == conv:
                n = min(tokens, prompt_tokens)
            elif sys_key is not None and slot.sys_key == sys_key:
                n = min(tokens, slot.sys_tokens, sys_tokens, prompt_tokens)
            else:
                n = 0
            if n > best_len:
                best, best_len = slot, n
        # get_available_slot's LRU pass: ``t_last_used <= t_last`` over the slots in order, so
        # among equally old slots (never-used ones all have -1) the highest index wins
        if lru is None or slot.last_used <= lru.last_used:
            lru = slot
    if best is not None and prompt_tokens > 0 and best_len / prompt_tokens > similarity:
        return best
    assert lru is not None, "no idle slot to choose from"
    return lru


def sticky_policy(
    idle: Sequence[Slot],
    conv: object,
    sys_key: object,
    sys_tokens: int,
    prompt_tokens: int,
    similarity: float,
) -> Slot:
    for slot in idle:
        if slot.conv == conv:
            return slot
    return min(idle, key=lambda s: (s.last_used, s.index))


POLICIES: dict[str, SlotChooser] = {"llama-cpp": llama_cpp_policy, "sticky": sticky_policy}


def slot_policy(name: str) -> SlotChooser:
    try:
        return POLICIES[name]
    except KeyError:
        raise AgbenchError(f"unknown slot policy {name!r} (expected one of {', '.join(POLICIES)})") from None


__all__ = [
    "POLICIES",
    "Slot",
    "SlotChooser",
    "common_prefix",
    "llama_cpp_policy",
    "slot_policy",
    "sticky_policy",
]
