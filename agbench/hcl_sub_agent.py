"""Whether HCL's local sub-agent remembers earlier delegations: one option, both halves.

In the paper's HCL the cloud lead delegates to a local agent that keeps its conversation
across delegations: a later delegation is appended to the history of the earlier ones (so its
prompts grow, and the server's prefix cache holds that history), and a local agent that hit a
context error keeps the history that failed, while the lead sees only a generic failure and
may delegate again until the task's deadline. That is ``persistent``, the default. ``fresh``
starts every delegation as a new sub-agent (system prompt + instruction); a re-delegation
after a failure resumes at the step that failed with a new, short history.

The choice is the option ``hcl_sub_agent``: ``agbench run/sweep --hcl-sub-agent`` (recorded in
run.json's ``options``) and ``BehaviourProfile.hcl_sub_agent`` in the simulator (recorded in a
simulated run's profile). A live run.json written before the option existed ran ``fresh``
sub-agents, which is what :func:`recorded_sub_agent` reports for it, so that validating such a
run simulates what it did.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from agbench.errors import AgbenchError

#: The option's name wherever it appears (run.json options, CLI flag, profile field).
OPTION = "hcl_sub_agent"


class SubAgentMemory(StrEnum):
    """What HCL's local sub-agent keeps between delegations."""

    PERSISTENT = "persistent"  # one conversation across delegations (the paper's agent)
    FRESH = "fresh"  # a new sub-agent per delegation


DEFAULT = SubAgentMemory.PERSISTENT
#: What live runs did before the option was recorded.
BEFORE_OPTION = SubAgentMemory.FRESH
CHOICES = tuple(m.value for m in SubAgentMemory)


def sub_agent_memory(value: str | SubAgentMemory) -> SubAgentMemory:
    """``value`` as a :class:`SubAgentMemory`; a one-line error naming the choices otherwise."""
    try:
        return SubAgentMemory(value)
    except ValueError:
        raise AgbenchError(f"{OPTION} must be one of {', '.join(CHOICES)}, not {value!r}") from None


def recorded_sub_agent(options: Mapping[str, Any]) -> SubAgentMemory:
    """The behaviour a live run used, from its run.json ``options`` (absent: ``fresh``)."""
    value = options.get(OPTION)
    return BEFORE_OPTION if value in (None, "") else sub_agent_memory(str(value))


__all__ = [
    "BEFORE_OPTION",
    "CHOICES",
    "DEFAULT",
    "OPTION",
    "SubAgentMemory",
    "recorded_sub_agent",
    "sub_agent_memory",
]
