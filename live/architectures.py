"""The four deployment architectures (paper, "Deployment architectures"): who leads, on which
endpoint, and how local and cloud agents coordinate.

- LO: a local agent plans and acts (local model).
- CO: a cloud agent plans and acts (cloud model); tools still run on the device.
- HCL: a cloud agent leads; its ``delegate(instruction)`` tool runs a local sub-agent loop with
  the same sandbox tools and returns the sub-agent's report. The sub-agent keeps its history
  across the task's delegations (the paper's agent; ``hcl_sub_agent``, agbench.hcl_sub_agent),
  including after a context error, of which the lead hears only a generic failure.
- HLL: a local agent leads; its ``consult(question)`` tool asks the cloud model once and the
  local agent carries on.

Every agent of a task shares the task's one deadline. Every delegation and consultation is a
``messages`` row (sizes, times, whether it succeeded). A local context error inside a hybrid
is counted against the local agent (``task_runs.local_context_errors``) even when the cloud
lead carries on and the task succeeds.

This module holds what is common to every agent kind (prompts, the coordination tools' schemas
and bookkeeping) so the model agent and the replay agent coordinate identically; the role table
itself (``PLANS``) is the core's (agbench.architecture_roles), shared with the simulator.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agbench.architecture_roles import (
    PLANS,
    PROMPT_DIR,
    ArchitecturePlan,
    Role,
    plan_for,
    system_prompt,
)
from agbench.attempt import AgentLabel, MessageKind

if TYPE_CHECKING:
    from agbench.live.agents.base import AgentContext

#: Agent labels as they appear in the trace's ``agent`` / ``sender`` / ``receiver`` columns
#: (the core's :class:`~agbench.attempt.AgentLabel`; HLL's consulted cloud model is ``cloud``).
AGENT_LOCAL = AgentLabel.LOCAL
AGENT_CLOUD = AgentLabel.CLOUD
AGENT_LOCAL_SUB = AgentLabel.LOCAL_SUB  # HCL's delegated sub-agent


# ---- prompts ------------------------------------------------------------------------------------
def prompt_texts() -> dict[str, dict[str, str]]:
    """Every system prompt with its SHA-256, as recorded in a run's ``run.json``."""
    out: dict[str, dict[str, str]] = {}
    for path in sorted(PROMPT_DIR.glob("*.md")):
        text = path.read_text(encoding="utf-8").strip()
        out[path.stem] = {"sha256": hashlib.sha256(text.encode()).hexdigest(), "text": text}
    return out


# ---- coordination tools -------------------------------------------------------------------------
DELEGATE_SCHEMA: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": MessageKind.DELEGATE.value,
        "description": (
            "Hand a self-contained piece of work to a local assistant on the user's device. It has "
            "the same file, shell and search tools, sees only the instructions you give it, and "
            "returns a report."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "instruction": {
                    "type": "string",
                    "description": "What to do and what to report back, self-contained.",
                }
            },
            "required": ["instruction"],
        },
    },
}

CONSULT_SCHEMA: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": MessageKind.CONSULT.value,
        "description": (
            "Ask a stronger remote model for advice (planning, reasoning, checking). It cannot see "
            "files or run tools: include what it needs to know. Returns its answer."
        ),
        "parameters": {
            "type": "object",
            "properties": {"question": {"type": "string", "description": "The question, self-contained."}},
            "required": ["question"],
        },
    },
}


def coordination_schemas(plan: ArchitecturePlan) -> list[dict[str, Any]]:
    if plan.coordination is MessageKind.DELEGATE:
        return [DELEGATE_SCHEMA]
    if plan.coordination is MessageKind.CONSULT:
        return [CONSULT_SCHEMA]
    return []


@dataclass
class SubAgentReport:
    """What a delegated sub-agent returns to its lead."""

    report: str
    ok: bool
    reason: str = ""


SubAgentRunner = Callable[["AgentContext", Role, str], Awaitable[SubAgentReport]]


async def delegate(
    ctx: AgentContext, plan: ArchitecturePlan, instruction: str, run_sub_agent: SubAgentRunner
) -> str:
    """HCL's ``delegate``: run the local sub-agent on ``instruction``; record one message row.

    The sub-agent's context errors are already in the trace (its model calls); a failed
    delegation is reported to the lead as text so the lead can decide what to do, as a real
    cloud agent would.
    """
    assert plan.helper is not None
    instruction = instruction.strip()
    t_start = time.time()
    if not instruction:
        report = SubAgentReport(
            "delegate needs a non-empty 'instruction'.", ok=False, reason="empty instruction"
        )
    else:
        report = await run_sub_agent(ctx, plan.helper, instruction)
    text = (
        report.report
        if report.ok
        else f"The local assistant could not finish ({report.reason}). {report.report}"
    )
    ctx.record_message(
        MessageKind.DELEGATE,
        plan.lead.agent,
        plan.helper.agent,
        t_start,
        time.time(),
        instruction,
        text,
        report.ok,
    )
    return text.strip()


async def consult(
    ctx: AgentContext, plan: ArchitecturePlan, question: str, *, max_tokens: int | None = None
) -> str:
    """HLL's ``consult``: one cloud model turn on ``question``; record one message row."""
    assert plan.helper is not None
    question = question.strip()
    t_start = time.time()
    if not question:
        ctx.record_message(
            MessageKind.CONSULT, plan.lead.agent, plan.helper.agent, t_start, time.time(), "", "", False
        )
        return "consult needs a non-empty 'question'."
    messages = [
        {"role": "system", "content": plan.helper.system_prompt},
        {"role": "user", "content": question},
    ]
    result = await ctx.chat(plan.helper.agent, plan.helper.endpoint, messages, max_tokens=max_tokens)
    error = str(getattr(result, "error_class", "") or "")
    answer = "" if error else str(getattr(result, "content", "") or "").strip()
    text = answer if not error else f"The consultation failed ({error})."
    ctx.record_message(
        MessageKind.CONSULT,
        plan.lead.agent,
        plan.helper.agent,
        t_start,
        time.time(),
        question,
        text,
        not error,
    )
    return text


__all__ = [
    "AGENT_CLOUD",
    "AGENT_LOCAL",
    "AGENT_LOCAL_SUB",
    "CONSULT_SCHEMA",
    "DELEGATE_SCHEMA",
    "PLANS",
    "ArchitecturePlan",
    "Role",
    "SubAgentReport",
    "consult",
    "coordination_schemas",
    "delegate",
    "plan_for",
    "prompt_texts",
    "system_prompt",
]
