"""What every agent kind shares: the context it runs in, what it returns, and the protocol.

An agent (model-driven, replayed, oracle or null) never talks to a model server, a sandbox or
the trace directly: it goes through its ``AgentContext``, which sends model requests through
the recording proxy, runs tools in the task's sandbox, writes one trace row per model call,
tool call and inter-agent message, and keeps the attempt's time breakdown. Keeping all of that
in one place is what makes the four agent kinds comparable: whatever decides the next step,
the same calls are timed and recorded the same way.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from agbench.attempt import AgentLabel, AttemptCounters, AttemptKey, Endpoint, ErrorClass, MessageKind
from agbench.config import AgentKind, Architecture, PriceTable
from agbench.records import Message, ModelCall, ToolCall
from agbench.status import Status
from agbench.task import Task

if TYPE_CHECKING:
    from agbench.journal import JournalWriter
    from agbench.live.providers import ChatResult
    from agbench.live.sandbox import Sandbox
    from agbench.live.tools import Tool, ToolResult

T = TypeVar("T")
BackendFactory = Callable[[AgentLabel, Endpoint], "ChatBackend"]  # (agent, endpoint) -> backend

#: Where a model request goes. ``local``: the device's own server; ``cloud``: the cloud API
#: (or the local stand-in for it).
ENDPOINTS = tuple(Endpoint)

#: Message sizes in tokens are estimated at this many UTF-8 bytes per token: the harness does
#: not tokenize inter-agent messages itself (the model calls carrying them are counted exactly).
BYTES_PER_TOKEN_ESTIMATE = 4


def _normalise_proxy_errors(result: ChatResult) -> None:
    """The recording proxy answers 502 when the upstream could not be reached and 504 when it
    timed out; the client sees only a 5xx. Map them back so a dead server is infrastructure,
    not the model's failure (the proxy's own trace row carries the same class)."""
    if result.error_class == ErrorClass.SERVER_ERROR and result.status_code == 502:
        result.error_class = ErrorClass.CONNECTION
    elif result.error_class == ErrorClass.SERVER_ERROR and result.status_code == 504:
        result.error_class = ErrorClass.TIMEOUT


class ChatBackend(Protocol):
    """Something that answers chat requests: ``agbench.live.providers.ChatClient`` in runs."""

    async def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        max_tokens: int | None = None,
        extra_body: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> ChatResult: ...


@dataclass
class AgentOutcome:
    """How an agent's run ended.

    ``status`` None means the agent finished and the verifier decides (success or
    verification_failed); otherwise the agent itself ended the attempt (context_limit,
    execution_error, timeout, infrastructure_error...). ``local_context_errors`` counts local
    context errors even when a hybrid's cloud agent carried on past them.
    """

    answer: str
    status: Status | None
    reason: str
    local_context_errors: int = 0


class AttemptRecorder:
    """Writes one attempt's trace rows (journal) and sums them into its counters.

    Every row's identity comes from the attempt's :class:`~agbench.attempt.AttemptKey`
    (``key.ids()``); the counters are the core's :class:`~agbench.attempt.AttemptCounters`,
    turned into the ``task_runs`` row by ``counters.task_run`` as the simulator does.
    """

    def __init__(self, writer: JournalWriter | None, key: AttemptKey, prices: PriceTable) -> None:
        self.writer = writer
        self.key = key
        self.prices = prices
        self.counters = AttemptCounters()
        self.model_call_rows: list[ModelCall] = []
        self.closed = False
        self.cancelled_requests: set[str] = set()

    def write(self, record: Any) -> None:
        """Append a row to the attempt's journal; rows arriving after it closed are dropped."""
        if self.writer is not None and not self.closed:
            self.writer.write(record)

    def close(self, final_row: Any | None = None) -> None:
        """Write the last row (the ``task_runs`` row) and close the journal."""
        if final_row is not None:
            self.write(final_row)
        self.closed = True
        if self.writer is not None:
            self.writer.close()

    def cancelled_call(
        self,
        agent: AgentLabel,
        endpoint: Endpoint,
        call_id: str,
        request_id: str,
        t_start: float,
        waited_s: float,
    ) -> None:
        """A model request abandoned mid-flight (deadline or stop), recorded as a timeout."""
        self.cancelled_requests.add(request_id)
        self.model_call(
            ModelCall(
                **self.key.ids(),
                agent=agent,
                endpoint=endpoint,
                call_id=call_id,
                t_start=t_start,
                total_s=waited_s,
                error_class=ErrorClass.TIMEOUT,
                request_id=request_id,
                finish_reason="cancelled",
            )
        )

    def model_call(self, row: ModelCall) -> None:
        if row.request_id and row.request_id in self.cancelled_requests and row.finish_reason != "cancelled":
            return  # the proxy's late row for a call already recorded as cut off
        self.counters.add_model_call(row)
        self.model_call_rows.append(row)
        self.write(row)

    def exposure(self, row: Any) -> None:
        self.write(row)

    def tool_call(self, row: ToolCall) -> None:
        self.counters.add_tool_call(row)
        self.counters.tools_s += row.wall_s
        self.write(row)


class AgentContext:
    """Everything an agent may use during one task attempt.

    Fields: ``task``, ``architecture``, ``sandbox``, ``tools`` (the sandbox tools of the common
    interface), ``deadline`` (``time.monotonic()`` value shared by all agents of the task),
    ``seed``, ``server_urls`` (direct upstream base URLs by endpoint, e.g. for ``/tokenize``;
    model requests must use ``chat``, which goes through the recording proxy).
    """

    def __init__(
        self,
        *,
        task: Task,
        architecture: Architecture,
        sandbox: Sandbox,
        tools: list[Tool],
        deadline: float,
        seed: int,
        server_urls: dict[str, str],
        backends: dict[Endpoint, ChatBackend] | BackendFactory,
        recorder: AttemptRecorder,
        calls_recorded_by_proxy: bool = False,
        agent_kind: AgentKind = AgentKind.MODEL,
        tool_call_parser: str = "auto",
        max_tokens: int | None = None,
        text_tool_endpoints: frozenset[str] = frozenset(),
    ) -> None:
        self.task = task
        self.architecture = architecture
        self.sandbox = sandbox
        self.tools = tools
        self.deadline = deadline
        self.seed = seed
        self.server_urls = server_urls
        self.agent_kind = agent_kind
        self.tool_call_parser = tool_call_parser
        self.max_tokens = max_tokens
        #: Endpoints whose chat template drops the ``tools`` field (llama.cpp ``/props`` says
        #: ``supports_tools: false``): a model agent describes its tools in the prompt instead.
        self.text_tool_endpoints = text_tool_endpoints
        if isinstance(backends, dict):
            table = {Endpoint(e): b for e, b in backends.items()}

            def backend_for(agent: AgentLabel, endpoint: Endpoint) -> ChatBackend:
                return table[endpoint]

            self._backend_for: BackendFactory = backend_for
            self._endpoints = set(table)
        else:
            self._backend_for = backends
            self._endpoints = {Endpoint(e) for e in server_urls}
        self._recorder = recorder
        self._proxied = calls_recorded_by_proxy
        self._tools_by_name = {t.name: t for t in tools}

    # ---- time --------------------------------------------------------------------------------
    def remaining_s(self) -> float:
        """Seconds left before the task's shared deadline (negative once it has passed)."""
        return self.deadline - time.monotonic()

    @property
    def recorder(self) -> AttemptRecorder:
        return self._recorder

    # ---- models ------------------------------------------------------------------------------
    async def chat(
        self,
        agent: AgentLabel,
        endpoint: Endpoint,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        max_tokens: int | None = None,
        extra_body: dict[str, Any] | None = None,
    ) -> ChatResult:
        """One model request through the proxy; recorded, timed, never raising for model errors.

        A failed request comes back as a ChatResult whose ``error_class`` says why. The time
        waited counts as local or cloud model time even when the task's deadline cancels the
        request half-way.
        """
        endpoint = Endpoint(endpoint)
        if endpoint not in self._endpoints:
            raise ValueError(f"no {endpoint.value!r} endpoint in architecture {self.architecture.value}")
        backend = self._backend_for(agent, endpoint)
        call_id = uuid.uuid4().hex[:16]
        request_id = uuid.uuid4().hex
        t_wall = time.time()
        t0 = time.monotonic()
        try:
            result = await backend.chat(
                messages,
                tools=tools,
                max_tokens=max_tokens,
                extra_body=extra_body,
                headers={"X-Request-ID": request_id},
            )
        except asyncio.CancelledError:
            # The task's deadline (or a stop) cut the request off: the trace still gets the
            # call, as a timeout, and any late row the proxy writes for it is dropped.
            self._recorder.cancelled_call(agent, endpoint, call_id, request_id, t_wall, time.monotonic() - t0)
            raise
        finally:
            self._recorder.counters.add_model_wait(endpoint, time.monotonic() - t0)
        _normalise_proxy_errors(result)
        if not self._proxied:
            self._record_model_call(result, agent, endpoint, call_id)
        return result

    def _record_model_call(
        self, result: ChatResult, agent: AgentLabel, endpoint: Endpoint, call_id: str
    ) -> None:
        cost = 0.0
        if endpoint is Endpoint.CLOUD and not result.error_class:
            cost = self._recorder.prices.cost(
                result.prompt_tokens, result.cached_tokens, result.completion_tokens
            )
        for row in result.model_calls(self._recorder.key, agent=agent, call_id=call_id, cost_usd=cost):
            row.endpoint = endpoint
            self._recorder.model_call(row)

    # ---- tools -------------------------------------------------------------------------------
    async def call_tool(self, agent: AgentLabel, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Run one sandbox tool; the call is timed and recorded whatever its outcome."""
        tool = self._tools_by_name.get(name)
        if tool is None:
            raise KeyError(name)
        t_wall = time.time()
        t0 = time.monotonic()
        result: ToolResult | None = None
        error = ""
        try:
            result = await tool.call(self.sandbox, arguments)
            return result
        except asyncio.CancelledError:
            error = "cancelled"
            raise
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            wall = time.monotonic() - t0
            self._recorder.tool_call(self._tool_call_row(agent, name, arguments, result, t_wall, wall, error))

    async def timed_tool(self, agent: AgentLabel, name: str, action: Callable[[], Awaitable[T]]) -> T:
        """Run a harness-level action as a recorded tool call (the oracle's solution run)."""
        t_wall = time.time()
        t0 = time.monotonic()
        error = ""
        try:
            return await action()
        except BaseException as exc:
            error = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            wall = time.monotonic() - t0
            self._recorder.tool_call(self._tool_call_row(agent, name, {}, None, t_wall, wall, error))

    def _tool_call_row(
        self,
        agent: AgentLabel,
        name: str,
        arguments: dict[str, Any],
        result: Any,
        t_wall: float,
        wall: float,
        error: str,
    ) -> ToolCall:
        row = ToolCall(
            **self._recorder.key.ids(),
            agent=AgentLabel(agent),
            call_id=uuid.uuid4().hex[:16],
            tool=name,
            t_start=t_wall,
            wall_s=wall,
            args_bytes=len(json.dumps(arguments, ensure_ascii=False, default=str).encode()),
            exit_code=-1,
            error=error,
        )
        if result is not None:
            row.cpu_s = float(getattr(result, "cpu_s", 0.0) or 0.0)
            row.exit_code = int(getattr(result, "exit_code", 0) or 0)
            row.bytes_in = int(getattr(result, "bytes_in", 0) or 0)
            output = getattr(result, "output", "")
            row.bytes_out = int(getattr(result, "bytes_out", 0) or 0) or len(str(output or "").encode())
            row.error = error or str(getattr(result, "error", "") or "")
        return row

    # ---- inter-agent messages ----------------------------------------------------------------
    def record_message(
        self,
        kind: MessageKind,
        sender: AgentLabel,
        receiver: AgentLabel,
        t_start: float,
        t_end: float,
        request_text: str,
        response_text: str,
        ok: bool,
    ) -> None:
        """One delegation or consultation (:class:`~agbench.attempt.MessageKind`); times are epoch s."""
        request_bytes = len(request_text.encode())
        response_bytes = len(response_text.encode())
        self._recorder.write(
            Message(
                **self._recorder.key.ids(),
                kind=MessageKind(kind),
                sender=AgentLabel(sender).value,
                receiver=AgentLabel(receiver).value,
                t_start=t_start,
                t_end=t_end,
                request_bytes=request_bytes,
                response_bytes=response_bytes,
                request_tokens=math.ceil(request_bytes / BYTES_PER_TOKEN_ESTIMATE),
                response_tokens=math.ceil(response_bytes / BYTES_PER_TOKEN_ESTIMATE),
                ok=ok,
            )
        )


class Agent(Protocol):
    """Decides a task attempt's steps. ``kind`` names it in every report."""

    kind: AgentKind

    async def run(self, ctx: AgentContext) -> AgentOutcome: ...


__all__ = [
    "ENDPOINTS",
    "Agent",
    "AgentContext",
    "AgentOutcome",
    "AttemptRecorder",
    "ChatBackend",
]
