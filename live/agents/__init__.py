"""Agents: what decides a task attempt's next step (model, replay, oracle, null)."""

from agbench.live.agents.base import (
    Agent,
    AgentContext,
    AgentOutcome,
    AttemptRecorder,
    ChatBackend,
)

__all__ = ["Agent", "AgentContext", "AgentOutcome", "AttemptRecorder", "ChatBackend"]
