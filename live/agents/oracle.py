"""The oracle agent: runs the task's own solution instead of a model.

It validates the harness end to end (sandbox, verifier, records, runner) independently of any
model's skill: under the oracle every task of the suite must succeed. The solution run is
recorded as one tool call named ``oracle`` so the time breakdown shows where the time went.
"""

from __future__ import annotations

from agbench.config import AgentKind
from agbench.live.agents.base import AgentContext, AgentOutcome
from agbench.live.architectures import plan_for
from agbench.live.verification import run_oracle

ORACLE_TOOL = "oracle"


class OracleAgent:
    kind = AgentKind.ORACLE

    async def run(self, ctx: AgentContext) -> AgentOutcome:
        agent = plan_for(ctx.architecture).lead.agent
        answer = await ctx.timed_tool(agent, ORACLE_TOOL, lambda: run_oracle(ctx.sandbox, ctx.task))
        return AgentOutcome(str(answer).strip(), None, "oracle solution ran")
