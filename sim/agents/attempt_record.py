"""The trace rows of one simulated attempt, built through the core's vocabulary.

The simulated agents (``task_agent``) decide *what happens*; this module writes *what is
recorded* about it, exactly as the live recorder does: every row's identity comes from the
attempt's :class:`~agbench.attempt.AttemptKey` (``key.ids()``), agent labels are
:class:`~agbench.attempt.AgentLabel` (the endpoint follows from the label), message kinds are
:class:`~agbench.attempt.MessageKind`, and the counters that become the ``task_runs`` row are
an :class:`~agbench.attempt.AttemptCounters` fed row by row, then closed by
:meth:`AttemptCounters.task_run`. Keeping the bookkeeping here means the two halves cannot
label or count an attempt differently.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from agbench.architecture_roles import plan_for
from agbench.attempt import AgentLabel, AttemptCounters, AttemptKey, ErrorClass, MessageKind
from agbench.config import Architecture
from agbench.records import Exposure, Message, ModelCall, TaskRun, ToolCall
from agbench.status import Status

BYTES_PER_TOKEN = 4  # ~4 bytes per token of English text: messages' byte sizes from tokens
# Plain strings for the rows, looked up once per label (enum attribute access is slow per row).
_AGENT_AND_ENDPOINT = {label: (label, label.endpoint) for label in AgentLabel}
_ERROR_CLASSES = frozenset(e.value for e in ErrorClass)


class SimRole(StrEnum):
    """Which of an attempt's agents a simulated step belongs to (the agent's trace label
    follows from the role and the architecture, :func:`agent_label`)."""

    LEAD = "lead"  # the agent that leads the architecture
    SUB = "sub"  # HCL's delegated local sub-agent
    CONSULT = "consult"  # HLL's consulted cloud model


def agent_label(architecture: Architecture | str, role: SimRole) -> AgentLabel:
    """The trace label of a role, as the live harness labels it: read from the core's role
    table (agbench.architecture_roles), so the two halves cannot label a role differently.
    A helper role of an architecture without one takes that role's label in the architecture
    that has it (HCL's sub-agent, HLL's consultant)."""
    if role is SimRole.LEAD:
        return plan_for(architecture).lead.agent
    owner = Architecture.HCL if role is SimRole.SUB else Architecture.HLL
    helper = plan_for(owner).helper
    assert helper is not None
    return helper.agent


class AttemptRecord:
    """One simulated attempt's rows (appended to the configuration's record list) and counters."""

    def __init__(self, key: AttemptKey, rows: list[Any]) -> None:
        self.key = key
        self.rows = rows
        self.counters = AttemptCounters()
        self.exposed = 0
        self._ids = key.ids()

    @property
    def calls(self) -> int:
        """Model requests recorded so far (numbers call ids and the cloud's conversations)."""
        return self.counters.model_calls

    def model_call(self, agent: AgentLabel, t_start: float, total_s: float, **figures: Any) -> ModelCall:
        """A finished model request: its row, its tokens and cost, and its wait (``total_s``)."""
        if figures.get("error_class", "") not in _ERROR_CLASSES:
            raise ValueError(f"not an error class: {figures['error_class']!r}")
        label, endpoint = _AGENT_AND_ENDPOINT[agent]
        row = ModelCall(
            **self._ids,
            agent=label,
            endpoint=endpoint,
            call_id=f"{self.key.task}-{self.counters.model_calls + 1}",
            t_start=t_start,
            total_s=total_s,
            **figures,
        )
        self.counters.add_model_call(row)
        self.counters.add_model_wait(endpoint, total_s)
        self.rows.append(row)
        return row

    def tool_call(
        self, agent: AgentLabel, tool: str, t_start: float, wall_s: float, cpu_s: float, bytes_out: int
    ) -> ToolCall:
        row = ToolCall(
            **self._ids,
            agent=_AGENT_AND_ENDPOINT[agent][0],
            call_id=f"{self.key.task}-t{self.counters.tool_calls + 1}",
            tool=tool,
            t_start=t_start,
            wall_s=wall_s,
            cpu_s=cpu_s,
            bytes_out=bytes_out,
        )
        self.counters.tools_s += wall_s
        self.counters.add_tool_call(row)
        self.rows.append(row)
        return row

    def message(
        self,
        kind: MessageKind,
        sender: AgentLabel,
        receiver: AgentLabel,
        t_start: float,
        t_end: float,
        request_tokens: int,
        response_tokens: int,
        ok: bool,
    ) -> Message:
        row = Message(
            **self._ids,
            kind=kind,
            sender=sender.value,
            receiver=receiver.value,
            t_start=t_start,
            t_end=t_end,
            request_bytes=request_tokens * BYTES_PER_TOKEN,
            response_bytes=response_tokens * BYTES_PER_TOKEN,
            request_tokens=request_tokens,
            response_tokens=response_tokens,
            ok=ok,
        )
        self.rows.append(row)
        return row

    def exposure(self, item: str, t_first: float) -> Exposure:
        """A sensitive item that reached the cloud in a request."""
        self.exposed += 1
        row = Exposure(**self._ids, item=item, t_first=t_first, where="request")
        self.rows.append(row)
        return row

    def task_run(
        self,
        *,
        agent_kind: str,
        category: str,
        difficulty: str,
        t_start: float,
        t_end: float,
        status: Status,
        reason: str,
        sensitive_total: int,
        answer: str,
    ) -> TaskRun:
        """The attempt's ``task_runs`` row (the core's one counters-to-row function)."""
        row = self.counters.task_run(
            self.key,
            agent_kind=agent_kind,
            category=category,
            difficulty=difficulty,
            t_start=t_start,
            t_end=t_end,
            status=status,
            reason=reason,
            sensitive_total=sensitive_total,
            sensitive_exposed=self.exposed,
            answer=answer,
        )
        self.rows.append(row)
        return row


__all__ = ["BYTES_PER_TOKEN", "AttemptRecord", "SimRole", "agent_label"]
