"""The slot choice follows llama.cpp's ``get_available_slot`` (tools/server/server-context.cpp)."""

from __future__ import annotations

from agbench.sim.schedulers.slot_policy import Slot, llama_cpp_policy


def test_among_never_used_slots_the_lru_pass_takes_the_highest_index() -> None:
    # llama.cpp: t_last_used = -1 for every fresh slot, compared with <= in slot order
    slots = [Slot(i) for i in range(4)]
    assert llama_cpp_policy(slots, "a", None, 0, 100, 0.1).index == 3


def test_the_oldest_slot_wins_before_the_index_decides() -> None:
    slots = [Slot(0, last_used=5.0), Slot(1, last_used=2.0), Slot(2, last_used=2.0), Slot(3, last_used=9.0)]
    assert llama_cpp_policy(slots, "a", None, 0, 100, 0.1).index == 2


def test_a_slot_holding_the_conversation_beats_the_lru_one() -> None:
    slots = [Slot(0, conv="a", tokens=80, last_used=9.0), Slot(1), Slot(2)]
    assert llama_cpp_policy(slots, "a", None, 0, 100, 0.1).index == 0
