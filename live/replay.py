"""The replay agent: a trajectory decides every step; the server load and the tools are real.

Small models that run on a 2-core machine solve almost no task, so a live run with them
measures latency and contention truthfully but success, goodput and completion time stay near
zero. The replay agent takes the decisions from a trajectory (recorded from a real run or
synthesised from the oracle, ``agbench.trajectory``) and does everything else for real:
- every model turn is a real request to the configuration's server through the recording
  proxy (``ctx.chat``), with a history that grows exactly as the recorded agent's did: the
  role's system prompt, the task instruction, then per turn the model's own reply and the
  results of its actions. Text is real where there is some (the system prompt, the
  instruction, the tools' real output, the reply the server generated) and padded with
  neutral filler so every request's prompt is the recorded number of tokens as the server
  counts them (``trajectories.sizing``: exact on llama.cpp via ``/tokenize``, estimated
  elsewhere). The server's prefix cache and KV pool therefore see what they would see with
  the recorded agent. The output length is forced with ``max_tokens`` and llama.cpp's
  ``ignore_eos``; where the server is not llama.cpp it is only capped, and the attempt's
  reason says so;
- every tool call is executed in the task's sandbox (``ctx.call_tool``);
- HCL delegations run the sub-agent's trajectory on the local endpoint and HLL
  consultations one cloud turn, each recorded as a ``messages`` row. The sub-agent keeps one
  conversation across the attempt's delegations (``hcl_sub_agent="persistent"``, the paper's
  agent, ``agbench.hcl_sub_agent``): a later delegation's instruction is appended to the real
  history of the earlier ones, so its requests grow and the server's prefix cache holds that
  history; ``"fresh"`` starts each delegation from the system prompt. A delegation's first
  turn's ``prompt_tokens_added`` is its instruction either way;
- the final answer is the trajectory's, so the verifier passes unless the infrastructure
  intervened.

Failures follow each architecture's policy, as for the model-driven agent
(``agents/model_agent.py``): a failed model call of the lead ends the attempt (context_limit
-> ``context_limit``, deadline -> ``timeout``, server error -> ``execution_error``,
connection/rate/malformed -> ``infrastructure_error``); in HCL a failed delegation comes back
to the cloud lead as a generic failure and the lead delegates again, at most
``max_redelegations`` times per delegation (each re-delegation is one more lead turn, and the
sub-agent resumes at the step that failed, so no tool call runs twice: a persistent one with
the history that failed plus the new instruction, so a context error tends to recur; a fresh
one with a new history), then gives up without an answer; in HLL a failed consultation is reported to the local lead, which
carries on. Local context errors are counted even when papered over.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import httpx

from agbench.attempt import Endpoint, ErrorClass, MessageKind
from agbench.config import AgentKind, Architecture
from agbench.errors import AgbenchError
from agbench.hcl_sub_agent import DEFAULT as DEFAULT_SUB_AGENT
from agbench.hcl_sub_agent import SubAgentMemory, sub_agent_memory
from agbench.live.agents.base import AgentContext, AgentOutcome
from agbench.live.agents.model_agent import ERROR_STATUS, tool_result_text
from agbench.live.architectures import ArchitecturePlan, Role, SubAgentReport, delegate, plan_for
from agbench.live.trajectories.sizing import CounterCache, TokenCounter, fit_last_message, sized_text
from agbench.status import Status
from agbench.trajectory import ToolStep, Trajectory, TrajectorySet, Turn

MAX_REDELEGATIONS = 2
#: Template tokens around one message, kept out of a result's own share of the history.
MESSAGE_FRAMING_TOKENS = 5


@dataclass
class _Pending:
    """An action of the last turn and its result, waiting to enter the history.

    The history takes them the way the model agent writes them: the assistant message with
    native ``tool_calls``, then one ``tool`` message per result (templates that cannot show
    tool calls render the text only; the sizing measures whatever the server renders)."""

    name: str
    arguments: dict[str, Any]
    text: str
    tokens: int
    call_id: str = field(default_factory=lambda: f"call_{uuid.uuid4().hex[:12]}")

    def tool_call(self) -> dict[str, Any]:
        arguments = json.dumps(self.arguments, ensure_ascii=False)
        return {
            "id": self.call_id,
            "type": "function",
            "function": {"name": self.name, "arguments": arguments},
        }

    def message(self, content: str) -> dict[str, Any]:
        return {"role": "tool", "tool_call_id": self.call_id, "name": self.name, "content": content}


@dataclass
class _Conversation:
    """One agent's history as the server sees it; a persistent sub-agent keeps its own across
    delegations. ``target``: its size in tokens as the trajectory records it; ``reply`` and
    ``pending``: the last turn's reply and its actions' results, still to enter it;
    ``failed``: the last request failed, so the history ends with the prompt it sent."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    target: int = 0
    reply: str = ""
    pending: list[_Pending] = field(default_factory=list)
    failed: bool = False


@dataclass
class _End:
    """How one agent's replay ended. ``failed_turn``: the turn whose model call failed."""

    status: Status | None
    reason: str
    turns: int = 0
    failed_turn: int | None = None
    gave_up: bool = False


class ReplayAgent:
    """Replays a trajectory set: one trajectory per (task, architecture)."""

    kind = AgentKind.REPLAY

    def __init__(
        self,
        trajectories: TrajectorySet,
        *,
        max_redelegations: int = MAX_REDELEGATIONS,
        hcl_sub_agent: str | SubAgentMemory = DEFAULT_SUB_AGENT,
    ) -> None:
        self.trajectories = trajectories
        self.max_redelegations = max_redelegations
        self.hcl_sub_agent = sub_agent_memory(hcl_sub_agent)
        self._counters = CounterCache()
        self._system_texts: dict[tuple[int, str, int], str] = {}
        self._active = 0

    # ---- before a run --------------------------------------------------------------------------
    def check(self, task_ids: Iterable[str], architectures: Iterable[Architecture | str]) -> None:
        """Raise AgbenchError naming every (task, architecture) the set has no trajectory for."""
        missing = [
            f"{task}/{Architecture(arch).value}"
            for arch in architectures
            for task in task_ids
            if self.trajectories.get(task, Architecture(arch).value) is None
        ]
        if missing:
            shown = ", ".join(missing[:8]) + (f" and {len(missing) - 8} more" if len(missing) > 8 else "")
            raise AgbenchError(f"the trajectory file has no trajectory for {shown}")

    # ---- the agent -----------------------------------------------------------------------------
    async def run(self, ctx: AgentContext) -> AgentOutcome:
        traj = self.trajectories.get(ctx.task.id, ctx.architecture.value)
        if traj is None:
            return AgentOutcome(
                "",
                Status.INFRASTRUCTURE_ERROR,
                f"no trajectory for {ctx.task.id} under {ctx.architecture.value}",
            )
        plan = plan_for(ctx.architecture)
        notes: set[str] = set()
        t0 = time.monotonic()
        self._active += 1
        try:
            # the attempt's one sub-agent conversation when it persists across delegations
            kept = _Conversation() if self.hcl_sub_agent is SubAgentMemory.PERSISTENT else None
            end = await self._run_agent(ctx, plan, traj, plan.lead, ctx.task.instruction, notes, kept=kept)
        except httpx.HTTPError as exc:  # the server stopped answering /tokenize: as a lost connection
            end = _End(
                Status.INFRASTRUCTURE_ERROR, f"sizing the next request failed: {type(exc).__name__}: {exc}"
            )
        finally:
            self._active -= 1
            if self._active == 0:  # the last attempt in flight: release the tokenizer connections
                await self._counters.aclose()
        reason = (
            f"{end.reason}; replayed {end.turns} of {traj.total_turns} planned turn(s) "
            f"({self.trajectories.source} trajectory) in {time.monotonic() - t0:.1f} s"
        )
        if notes:
            reason += "; " + "; ".join(sorted(notes))
        answer = "" if end.status is not None or end.gave_up else traj.answer
        return AgentOutcome(answer, end.status, reason, ctx.recorder.counters.local_context_errors)

    async def _counter(self, ctx: AgentContext, endpoint: str) -> TokenCounter:
        return await self._counters.counter(ctx.server_urls.get(endpoint))

    def _extra_body(
        self, ctx: AgentContext, counter: TokenCounter, endpoint: str, notes: set[str]
    ) -> dict[str, Any]:
        if counter.exact:  # llama.cpp: generate exactly max_tokens
            return {"ignore_eos": True, "seed": ctx.seed}
        notes.add(f"{endpoint} output only capped, not forced (not a llama.cpp server)")
        return {}

    async def _system_message(self, counter: TokenCounter, role: Role, tokens: int) -> dict[str, Any]:
        """The role's real system prompt padded or cut to ``tokens``: identical for every task,
        so a slot's cached prefix is reused across tasks exactly as with the real agent."""
        key = (id(counter), role.prompt, tokens)
        if key not in self._system_texts:
            message = {"role": "system", "content": ""}
            await fit_last_message(counter, [message], tokens, role.system_prompt, f"system:{role.prompt}")
            self._system_texts[key] = message["content"]
        return {"role": "system", "content": self._system_texts[key]}

    async def _think(self, ctx: AgentContext, think_s: float, since: float) -> None:
        wait = min(think_s - (time.monotonic() - since), ctx.remaining_s())
        if wait > 0:
            await asyncio.sleep(wait)

    def _model_failure(self, ctx: AgentContext, role: Role, result: Any, turn: int, done: int) -> _End:
        error = str(result.error_class)
        if error == ErrorClass.TIMEOUT and ctx.remaining_s() <= 0:
            return _End(Status.TIMEOUT, "task deadline passed during a model call", done, turn)
        detail = str(getattr(result, "error", "") or "")[:200]
        reason = f"{role.agent} model call failed: {error}" + (f" ({detail})" if detail else "")
        return _End(ERROR_STATUS.get(error, Status.EXECUTION_ERROR), reason, done, turn)

    async def _run_agent(
        self,
        ctx: AgentContext,
        plan: ArchitecturePlan,
        traj: Trajectory,
        role: Role,
        instruction: str,
        notes: set[str],
        start: int = 0,
        conv: _Conversation | None = None,
        kept: _Conversation | None = None,
    ) -> _End:
        """Replay one agent's turns from ``start``. ``conv``: the conversation to carry on (a
        persistent sub-agent's; the instruction is appended to it), else a new one (system +
        instruction). ``kept``: the persistent sub-agent's conversation, for delegations."""
        turns = traj.turns
        if not turns:
            return _End(None, "answered (empty trajectory)")
        conv = conv if conv is not None else _Conversation()
        carried = bool(conv.messages)
        # A delegation's first turn reads the instruction (a resumed fresh agent's, in place
        # of that turn's own additions; a carried conversation's, on top of its history).
        sequence = [(i, turns[i], turns[i].prompt_tokens_added) for i in range(start, len(turns))]
        if (start > 0 or carried) and sequence:
            sequence[0] = (start, turns[start], turns[0].prompt_tokens_added)
        last_end = time.monotonic()
        done = 0
        for n, (index, turn, added) in enumerate(sequence):
            if ctx.remaining_s() <= 0:
                return _End(Status.TIMEOUT, "task deadline passed", done, index)
            await self._think(ctx, turn.think_s, last_end)
            counter = await self._counter(ctx, turn.endpoint)
            key = f"{ctx.task.id}:{traj.architecture}:{traj.agent}:{index}"
            if n == 0 and not carried:
                conv.messages[:] = [
                    await self._system_message(counter, role, traj.system_prompt_tokens),
                    {"role": "user"},
                ]
                conv.target = traj.system_prompt_tokens + added
                real = instruction
            elif n == 0:
                conv.target += added + await self._reopen(counter, conv, key)
                real = instruction
            else:
                conv.target += added
                real = await self._append_results(counter, conv.messages, conv.reply, conv.pending, key)
            await fit_last_message(counter, conv.messages, conv.target, real, key)
            result = await ctx.chat(
                role.agent,
                Endpoint(turn.endpoint),
                list(conv.messages),  # a snapshot: the history keeps growing after the call
                max_tokens=turn.output_tokens,
                extra_body=self._extra_body(ctx, counter, turn.endpoint, notes),
            )
            done += 1
            conv.pending = []
            if result.error_class:  # the history keeps the prompt that failed
                conv.failed, conv.reply = True, ""
                return self._model_failure(ctx, role, result, index, done)
            conv.failed, conv.reply = False, result.content or ""
            conv.target += turn.output_tokens
            for step in turn.tools:
                if ctx.remaining_s() <= 0:
                    return _End(Status.TIMEOUT, "task deadline passed during the tool calls", done, index)
                text = await self._call_tool(ctx, role, step)
                conv.pending.append(_Pending(step.tool, dict(step.arguments), text, step.output_tokens))
            if turn.delegate is not None:
                outcome = await self._delegate(
                    ctx, plan, traj, role, turn, conv.messages, conv.reply, notes, kept
                )
                if isinstance(outcome, _End):
                    outcome.turns += done
                    return outcome
                text, extra_turns, conv.reply, history = outcome
                done += extra_turns
                if history is not None:  # re-delegations grew the lead's history
                    conv.target = history
                conv.pending.append(_Pending(MessageKind.DELEGATE, {"instruction": conv.reply}, text, 0))
            if turn.consult is not None:
                consulted = await self._consult(ctx, plan, turn.consult, conv.reply, notes)
                if isinstance(consulted, _End):
                    consulted.turns += done
                    return consulted
                conv.pending.append(_Pending(MessageKind.CONSULT, {"question": conv.reply}, consulted, 0))
            last_end = time.monotonic()
        return _End(None, "answered", done)

    async def _reopen(self, counter: TokenCounter, conv: _Conversation, key: str) -> int:
        """Open a carried conversation for a new instruction: after a failed request the
        history already ends with what it sent; else the last reply (and any results of its
        actions, each sized to its recorded share) enters it. Appends the empty user message
        the instruction goes into; returns the recorded tokens the results add."""
        added = 0
        if not conv.failed:
            pending = conv.pending
            await self._append_results(counter, conv.messages, conv.reply, pending, key)
            if pending:  # the last result too is sized here; the instruction comes after it
                last = pending[-1]
                tokens = max(1, last.tokens - MESSAGE_FRAMING_TOKENS)
                conv.messages[-1] = last.message(await sized_text(counter, last.text, tokens, key))
                conv.messages.append({"role": "user"})
                added = sum(p.tokens for p in pending)
            # else _append_results left an empty user message: the instruction goes there
        else:
            conv.messages.append({"role": "user"})
        conv.pending, conv.failed = [], False
        return added

    async def _append_results(
        self,
        counter: TokenCounter,
        messages: list[dict[str, Any]],
        reply: str,
        pending: list[_Pending],
        key: str,
    ) -> str:
        """Append the last reply and its actions' results: every result but the last as its
        own message sized to its recorded share, the last one left for the caller to fit
        exactly. Returns the last one's real text."""
        if not pending:  # a turn without actions: the harness nudges the agent on
            messages.append({"role": "assistant", "content": reply})
            messages.append({"role": "user"})
            return "Continue."
        messages.append(
            {"role": "assistant", "content": reply, "tool_calls": [p.tool_call() for p in pending]}
        )
        for i, item in enumerate(pending[:-1]):
            tokens = max(1, item.tokens - MESSAGE_FRAMING_TOKENS)
            messages.append(item.message(await sized_text(counter, item.text, tokens, f"{key}:{i}")))
        messages.append(pending[-1].message(""))
        return pending[-1].text

    async def _call_tool(self, ctx: AgentContext, role: Role, step: ToolStep) -> str:
        known = {t.name for t in ctx.tools}
        if step.tool not in known:
            return f"error: unknown tool {step.tool!r}; available tools: {', '.join(sorted(known))}"
        try:
            result = await ctx.call_tool(role.agent, step.tool, dict(step.arguments))
        except (TypeError, ValueError, KeyError) as exc:
            return f"error: {step.tool} rejected its arguments: {exc}"
        return str(tool_result_text(result))

    async def _delegate(
        self,
        ctx: AgentContext,
        plan: ArchitecturePlan,
        traj: Trajectory,
        lead: Role,
        turn: Turn,
        messages: list[dict[str, Any]],
        instruction: str,
        notes: set[str],
        kept: _Conversation | None,
    ) -> _End | tuple[str, int, str, int | None]:
        """HCL: run the sub-trajectory (on ``kept``, the persistent sub-agent's conversation,
        else a fresh one); on failure the lead takes one more turn and delegates again
        (bounded). Returns the report, the extra lead turns, the lead's last reply and the size
        of the lead's history after them (None: no extra turn); or how it ended."""
        sub = turn.delegate
        assert sub is not None
        assert plan.helper is not None
        progress = 0
        extra_turns = 0
        history: int | None = None
        for attempt in range(self.max_redelegations + 1):
            ended: list[_End] = []

            async def run_sub(
                c: AgentContext, role: Role, text: str, start: int = progress, sink: list[_End] = ended
            ) -> SubAgentReport:
                end = await self._run_agent(c, plan, sub, role, text, notes, start=start, conv=kept)
                sink.append(end)
                if end.status is None:
                    return SubAgentReport(sub.answer, ok=True)
                if end.status is Status.TIMEOUT:
                    return SubAgentReport("", ok=False, reason="the task deadline passed")
                return SubAgentReport("", ok=False, reason=end.reason)

            text = instruction.strip() or "Carry out the next steps of the task and report."
            report = await delegate(ctx, plan, text, run_sub)
            end = ended[0] if ended else _End(Status.EXECUTION_ERROR, "delegation did not run")
            if end.status is None:
                return report, extra_turns, instruction, history
            if end.status is Status.TIMEOUT or ctx.remaining_s() <= 0:
                return _End(Status.TIMEOUT, "task deadline passed during a delegation", extra_turns)
            if attempt == self.max_redelegations:
                break
            progress = end.failed_turn if end.failed_turn is not None else progress
            # The lead reads the generic failure and writes a new delegation.
            counter = await self._counter(ctx, turn.endpoint)
            failed = _Pending(MessageKind.DELEGATE, {"instruction": instruction}, report, 0)
            messages.append({"role": "assistant", "content": instruction, "tool_calls": [failed.tool_call()]})
            messages.append(failed.message(report))
            prompt = await counter.count_prompt(messages)
            result = await ctx.chat(
                lead.agent,
                Endpoint(turn.endpoint),
                list(messages),  # a snapshot: the history keeps growing after the call
                max_tokens=turn.output_tokens,
                extra_body=self._extra_body(ctx, counter, turn.endpoint, notes),
            )
            extra_turns += 1
            if result.error_class:
                return self._model_failure(ctx, lead, result, -1, extra_turns)
            instruction = result.content or ""
            history = prompt + turn.output_tokens  # the lead's history now holds this much
        return _End(
            None,
            f"delegation failed {self.max_redelegations + 1} time(s); the lead gave up",
            extra_turns,
            gave_up=True,
        )

    async def _consult(
        self, ctx: AgentContext, plan: ArchitecturePlan, consult: Turn, question: str, notes: set[str]
    ) -> str | _End:
        """HLL: one cloud turn sized as recorded; its failure is reported to the lead."""
        assert plan.helper is not None
        helper = plan.helper
        question = question.strip() or "What should I do next?"
        t_start = time.time()
        counter = await self._counter(ctx, consult.endpoint)
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": helper.system_prompt},
            {"role": "user"},
        ]
        await fit_last_message(
            counter, messages, consult.prompt_tokens_added, question, f"{ctx.task.id}:consult:{t_start}"
        )
        result = await ctx.chat(
            helper.agent,
            Endpoint(consult.endpoint),
            messages,
            max_tokens=consult.output_tokens,
            extra_body=self._extra_body(ctx, counter, consult.endpoint, notes),
        )
        error = str(result.error_class or "")
        text = (result.content or "").strip() if not error else f"The consultation failed ({error})."
        ctx.record_message(
            MessageKind.CONSULT,
            plan.lead.agent,
            helper.agent,
            t_start,
            time.time(),
            question,
            text,
            not error,
        )
        if error == ErrorClass.TIMEOUT and ctx.remaining_s() <= 0:
            return _End(Status.TIMEOUT, "task deadline passed during a consultation")
        return text


__all__ = ["MAX_REDELEGATIONS", "ReplayAgent"]
