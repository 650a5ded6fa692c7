"""The null agent: does nothing and answers nothing.

Under it every task must fail its verifier; a task that passes anyway has a verifier that
checks too little (``agbench tasks check`` relies on this).
"""

from __future__ import annotations

from agbench.config import AgentKind
from agbench.live.agents.base import AgentContext, AgentOutcome


class NullAgent:
    kind = AgentKind.NULL

    async def run(self, ctx: AgentContext) -> AgentOutcome:
        return AgentOutcome("", None, "null agent: no action taken")
