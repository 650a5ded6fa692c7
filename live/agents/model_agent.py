"""The model-driven agent: model -> tool calls -> results -> model, until it answers.

The loop ends when the model replies without a tool call (its answer), when the task's shared
deadline passes (the runner cancels the attempt), or on an error the agent cannot recover
from. Native ``tool_calls`` are read first; text formats are parsed with the configured
parser (``--tool-call-parser``, default ``auto``). A tool the model invents or arguments it
garbles are answered with an error message and the loop continues, as a real agent would.

Context errors are recorded and surfaced, as in the paper: by default a ``context_limit``
answer ends the attempt with that status. The optional compaction policy
(``compaction="drop-old-tool-output"``) instead blanks old tool outputs and retries once;
each use is counted and written into the attempt's reason so a report can tell.

HCL's delegated sub-agent keeps one conversation across the attempt's delegations by default
(``hcl_sub_agent="persistent"``, the paper's agent, ``agbench.hcl_sub_agent``): each new
instruction is appended to its history, and after a context error it keeps the history that
failed. ``"fresh"`` starts a new sub-agent per delegation.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from agbench.attempt import ErrorClass, MessageKind
from agbench.config import AgentKind
from agbench.hcl_sub_agent import DEFAULT as DEFAULT_SUB_AGENT
from agbench.hcl_sub_agent import SubAgentMemory, sub_agent_memory
from agbench.live.agents.base import AgentContext, AgentOutcome
from agbench.live.architectures import (
    ArchitecturePlan,
    Role,
    SubAgentReport,
    consult,
    coordination_schemas,
    delegate,
    plan_for,
)
from agbench.live.parsers import parse_message
from agbench.live.tools import tool_schemas
from agbench.status import Status

#: Cap on one model turn's output when the run sets none (the paper's local cap is 8,192).
DEFAULT_MAX_TOKENS = 2048
#: Tool output longer than this is cut, with a marker, before it enters the history.
MAX_TOOL_OUTPUT_CHARS = 16_000
COMPACTION_POLICIES = ("none", "drop-old-tool-output")
_ELIDED = "[output removed to fit the model's context]"

_FINAL_RE = re.compile(r"final answer\s*[:：]\s*", re.IGNORECASE)

# Error classes that end a model turn, and the attempt status they give. A server error on a
# model turn (e.g. llama-server's HTTP 500 on an invented tool name) is the model's failure;
# connection loss, rate limiting and malformed responses are the infrastructure's. A request
# that ran past --model-request-timeout is a `timeout` (like the task deadline).
# The replay agent uses the same mapping.
ERROR_STATUS: dict[str, Status] = {
    ErrorClass.CONTEXT_LIMIT: Status.CONTEXT_LIMIT,
    ErrorClass.SERVER_ERROR: Status.EXECUTION_ERROR,
    ErrorClass.RATE_LIMITED: Status.INFRASTRUCTURE_ERROR,
    ErrorClass.CONNECTION: Status.INFRASTRUCTURE_ERROR,
    ErrorClass.BAD_RESPONSE: Status.INFRASTRUCTURE_ERROR,
    ErrorClass.TIMEOUT: Status.TIMEOUT,
}

ExtraTool = Callable[[dict[str, Any]], Awaitable[str]]


@dataclass
class LoopResult:
    answer: str
    status: Status | None
    reason: str
    turns: int = 0
    compactions: int = 0


def final_answer(text: str) -> str:
    """The answer in a closing message: what follows the last ``FINAL ANSWER:``, else all of it."""
    matches = list(_FINAL_RE.finditer(text))
    if matches:
        return text[matches[-1].end() :].strip()
    return text.strip()


def tool_result_text(result: Any) -> str:
    """What a tool returned, as the text the model reads."""
    for name in ("to_text", "text_for_model"):
        method = getattr(result, name, None)
        if callable(method):
            return str(method())
    for name in ("output", "content", "text"):
        value = getattr(result, name, None)
        if value is not None:
            return value if isinstance(value, str) else str(value)
    return str(result)


def tools_as_text(schemas: list[dict[str, Any]]) -> str:
    """The tool list for a model whose chat template cannot carry ``tools`` (Hermes-style calls,
    which the ``auto`` parser reads)."""
    lines = [
        "# Tools",
        "To call a tool, write exactly one line per call:",
        '<tool_call>{"name": "TOOL_NAME", "arguments": {"ARG": "VALUE"}}</tool_call>',
        "then stop and wait for the result. Available tools:",
    ]
    for schema in schemas:
        fn = schema.get("function", {})
        props = fn.get("parameters", {}).get("properties", {})
        required = set(fn.get("parameters", {}).get("required", []))
        args = ", ".join(
            f"{name}: {spec.get('type', 'any')}{'' if name in required else ' (optional)'}"
            for name, spec in props.items()
        )
        lines.append(f"- {fn.get('name')}({args}): {fn.get('description', '').strip()}")
    return "\n".join(lines)


def _clip(text: str) -> str:
    if len(text) <= MAX_TOOL_OUTPUT_CHARS:
        return text
    cut = len(text) - MAX_TOOL_OUTPUT_CHARS
    return text[:MAX_TOOL_OUTPUT_CHARS] + f"\n[... {cut} more characters cut by the harness]"


def _parse_calls(ctx: AgentContext, result: Any) -> tuple[list[Any], str]:
    message = {"role": "assistant", "content": result.content or "", "tool_calls": result.tool_calls or None}
    calls, text = parse_message(message, ctx.tool_call_parser)
    return list(calls), text if isinstance(text, str) else (result.content or "")


def _compact(messages: list[dict[str, Any]]) -> bool:
    """Blank all but the latest tool output; False when nothing was left to blank."""
    tool_indexes = [
        i for i, m in enumerate(messages) if m.get("role") == "tool" and m.get("content") != _ELIDED
    ]
    if len(tool_indexes) <= 1:
        return False
    for i in tool_indexes[:-1]:
        messages[i] = {**messages[i], "content": _ELIDED}
    return True


async def run_agent_loop(
    ctx: AgentContext,
    role: Role,
    user_message: str,
    *,
    extra_tools: dict[str, ExtraTool] | None = None,
    extra_schemas: list[dict[str, Any]] | None = None,
    compaction: str = "none",
    history: list[dict[str, Any]] | None = None,
) -> LoopResult:
    """One agent's loop on ``role``'s endpoint until it answers or cannot go on.

    ``history``: a conversation to carry on (a persistent sub-agent's): ``user_message`` is
    appended to it and it keeps growing in place; empty or None starts a new one."""

    extra_tools = extra_tools or {}
    schemas = list(tool_schemas(ctx.tools)) + list(extra_schemas or [])
    known = {t.name for t in ctx.tools} | set(extra_tools)
    max_tokens = ctx.max_tokens or DEFAULT_MAX_TOKENS
    system = role.system_prompt
    if role.endpoint in ctx.text_tool_endpoints and schemas:
        system += "\n\n" + tools_as_text(schemas)
    messages: list[dict[str, Any]] = history if history is not None else []
    if not messages:
        messages.append({"role": "system", "content": system})
    messages.append({"role": "user", "content": user_message})
    turns = 0
    compactions = 0
    while True:
        if ctx.remaining_s() <= 0:
            return LoopResult("", Status.TIMEOUT, "task deadline passed", turns, compactions)
        result = await ctx.chat(
            role.agent, role.endpoint, list(messages), tools=schemas or None, max_tokens=max_tokens
        )
        turns += 1
        error = str(result.error_class or "")
        if error:
            if error == ErrorClass.CONTEXT_LIMIT and compaction != "none" and _compact(messages):
                compactions += 1
                continue
            if error == ErrorClass.TIMEOUT and ctx.remaining_s() <= 0:
                return LoopResult(
                    "", Status.TIMEOUT, "task deadline passed during a model call", turns, compactions
                )
            status = ERROR_STATUS.get(error, Status.EXECUTION_ERROR)
            detail = str(getattr(result, "error", "") or "")[:200]
            reason = f"{role.agent} model call failed: {error}" + (f" ({detail})" if detail else "")
            return LoopResult("", status, reason, turns, compactions)
        calls, text = _parse_calls(ctx, result)
        if not calls:
            messages.append({"role": "assistant", "content": result.content or ""})
            return LoopResult(
                final_answer(text or result.content or ""), None, "answered", turns, compactions
            )
        native_ids = [str(c.get("id") or "") for c in (result.tool_calls or [])]
        tool_calls = []
        for i, call in enumerate(calls):
            call_id = call.id or (native_ids[i] if i < len(native_ids) and native_ids[i] else "")
            call.id = call_id or f"call_{uuid.uuid4().hex[:12]}"
            tool_calls.append(
                {
                    "id": call.id,
                    "type": "function",
                    "function": {
                        "name": call.name,
                        "arguments": json.dumps(call.arguments, ensure_ascii=False),
                    },
                }
            )
        # The model's own words stay in the history (with text tool calls, they are the calls).
        messages.append({"role": "assistant", "content": result.content or "", "tool_calls": tool_calls})
        for call in calls:
            output = await _run_call(ctx, role, call, known, extra_tools)
            messages.append(
                {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": _clip(output)}
            )


async def _run_call(
    ctx: AgentContext, role: Role, call: Any, known: set[str], extra_tools: dict[str, ExtraTool]
) -> str:
    if call.name not in known:
        return f"error: unknown tool {call.name!r}; available tools: {', '.join(sorted(known))}"
    if getattr(call, "malformed", False):
        raw = str(call.arguments.get("_raw", ""))[:200]
        return f"error: the arguments of {call.name} are not a valid JSON object: {raw}"
    if call.name in extra_tools:
        return await extra_tools[call.name](call.arguments)
    try:
        result = await ctx.call_tool(role.agent, call.name, call.arguments)
    except (TypeError, ValueError, KeyError) as exc:
        return f"error: {call.name} rejected its arguments: {exc}"
    return tool_result_text(result)


class ModelAgent:
    """A real model decides every step, under the configuration's architecture."""

    kind = AgentKind.MODEL

    def __init__(
        self, compaction: str = "none", hcl_sub_agent: str | SubAgentMemory = DEFAULT_SUB_AGENT
    ) -> None:
        if compaction not in COMPACTION_POLICIES:
            raise ValueError(
                f"unknown compaction policy {compaction!r} (one of {', '.join(COMPACTION_POLICIES)})"
            )
        self.compaction = compaction
        self.hcl_sub_agent = sub_agent_memory(hcl_sub_agent)

    async def run(self, ctx: AgentContext) -> AgentOutcome:
        plan = plan_for(ctx.architecture)
        extra = self._coordination_tools(ctx, plan)
        t0 = time.monotonic()
        lead = await run_agent_loop(
            ctx,
            plan.lead,
            ctx.task.instruction,
            extra_tools=extra,
            extra_schemas=coordination_schemas(plan),
            compaction=self.compaction,
        )
        reason = lead.reason + f" after {lead.turns} turn(s) in {time.monotonic() - t0:.1f} s"
        if lead.compactions:
            reason += f"; context compacted {lead.compactions} time(s) ({self.compaction})"
        return AgentOutcome(lead.answer, lead.status, reason, ctx.recorder.counters.local_context_errors)

    def _coordination_tools(self, ctx: AgentContext, plan: ArchitecturePlan) -> dict[str, ExtraTool]:
        if plan.coordination is MessageKind.DELEGATE:
            # this attempt's sub-agent conversation, kept across delegations when persistent
            kept: list[dict[str, Any]] = []

            async def run_sub(c: AgentContext, role: Role, instruction: str) -> SubAgentReport:
                history = kept if self.hcl_sub_agent is SubAgentMemory.PERSISTENT else None
                sub = await run_agent_loop(c, role, instruction, compaction=self.compaction, history=history)
                if sub.status is None:
                    return SubAgentReport(sub.answer, ok=True)
                if sub.status is Status.TIMEOUT:
                    return SubAgentReport("", ok=False, reason="the task deadline passed")
                return SubAgentReport(sub.answer, ok=False, reason=sub.reason)

            async def delegate_tool(args: dict[str, Any]) -> str:
                report: str = await delegate(ctx, plan, str(args.get("instruction", "")), run_sub)
                return report

            return {MessageKind.DELEGATE: delegate_tool}
        if plan.coordination is MessageKind.CONSULT:

            async def consult_tool(args: dict[str, Any]) -> str:
                answer: str = await consult(
                    ctx, plan, str(args.get("question", "")), max_tokens=ctx.max_tokens or DEFAULT_MAX_TOKENS
                )
                return answer

            return {MessageKind.CONSULT: consult_tool}
        return {}


__all__ = [
    "COMPACTION_POLICIES",
    "DEFAULT_MAX_TOKENS",
    "LoopResult",
    "ModelAgent",
    "final_answer",
    "run_agent_loop",
]
