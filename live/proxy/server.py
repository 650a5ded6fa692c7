"""The recording proxy itself: its lifecycle, its routes, and what happens to each request.

A route names the upstream, the attempt and optionally the agent,
``/u/<upstream>/a/<token>[/g/<agent>]/v1/<rest>``, so a request is attributed without trusting
anything its sender says. ``POST .../v1/chat/completions`` is relayed and measured
(``chat_relay``) and becomes a :class:`CallRecord`, handed to ``on_call`` before the agent can
act on the answer (the call is recorded in the task that writes the answer's last byte, before
it yields again). Any other ``/v1`` route (``/v1/models`` ...) is relayed, not recorded;
``/health`` answers the proxy's own health.

With a privacy guard (``privacy_guard``, ``live/privacy``) every cloud-bound chat request is
rewritten or refused before it leaves, and its answer restored before the agent reads it; the
exposure match, the raw log and the trace see the request as the cloud saw it. A request the
guard cannot read (not a JSON object) is refused: the guard fails closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agbench.attempt import AttemptKey, ErrorClass
from agbench.live.privacy.guard import BLOCKED_ERROR, GuardDecision
from agbench.live.proxy.agent_http import (
    MAX_HEADER_BYTES,
    AgentConnection,
    AgentRequest,
    response_head,
    send_error,
    send_json,
    serve_requests,
)
from agbench.live.proxy.attempts import AttemptContext, AttemptRegistry
from agbench.live.proxy.call_record import CallRecord
from agbench.live.proxy.chat_relay import ChatRequest, relay_chat, watching_agent
from agbench.live.proxy.http1 import Http1Pool, MalformedResponse
from agbench.live.proxy.privacy_hooks import blocked_result, guard_request
from agbench.live.proxy.raw_log import RawLogWriter, raw_log_line
from agbench.live.proxy.upstream import Upstream, relayed_headers
from agbench.live.secrets import Redactor

if TYPE_CHECKING:
    from agbench.live.privacy.guard import GuardSettings

log = logging.getLogger(__name__)


def parse_route(path: str) -> tuple[str, str, str | None, str] | None:
    """``/u/<up>/a/<token>[/g/<agent>]/v1<rest>`` -> (up, token, agent, rest); None otherwise."""
    parts = path.split("/")
    if len(parts) < 6 or parts[1] != "u" or parts[3] != "a":
        return None
    upstream, token = parts[2], parts[4]
    index = 5
    agent: str | None = None
    if len(parts) > 7 and parts[5] == "g":
        agent = parts[6]
        index = 7
    if index >= len(parts) or parts[index] != "v1":
        return None
    rest = "/" + "/".join(parts[index + 1 :])
    return upstream, token, agent, rest


class RecordingProxy:
    """An OpenAI-compatible proxy on 127.0.0.1, in the harness's event loop.

    ``upstreams`` maps route names to model endpoints; their API keys join the redaction list.
    ``raw_log_path`` (or None) receives ``raw_responses.jsonl``. ``on_call`` is called in the
    event loop (it must not block) once per chat request, after the answer was relayed.
    ``privacy_guard`` (``--privacy-guard``/``--detector``) guards every cloud-bound request.
    Use ``await start()`` / ``await stop()`` or ``async with``.
    """

    def __init__(
        self,
        upstreams: dict[str, Upstream],
        raw_log_path: Path | str | None,
        on_call: Callable[[CallRecord], None] | None = None,
        privacy_guard: GuardSettings | None = None,
    ) -> None:
        for name in upstreams:
            if not name or "/" in name:
                raise ValueError(f"bad upstream name {name!r}")
        self.upstreams = dict(upstreams)
        self.raw_log_path = Path(raw_log_path) if raw_log_path is not None else None
        self.on_call = on_call
        self.port = 0
        self.redactor = Redactor(u.api_key for u in self.upstreams.values() if u.api_key)
        self.attempts = AttemptRegistry(privacy_guard)
        self._pools = {name: Http1Pool(u.api_base) for name, u in self.upstreams.items()}
        self._limiters = {
            name: asyncio.Semaphore(u.max_concurrent)
            for name, u in self.upstreams.items()
            if u.max_concurrent
        }
        self._server: asyncio.Server | None = None
        self._raw_writer: RawLogWriter | None = None
        self._connections: set[asyncio.Task[None]] = set()

    # --- attempts ---------------------------------------------------------------------------

    def register_attempt(
        self, key: AttemptKey, sensitive_items: tuple[str, ...] = (), sensitive_kinds: tuple[str, ...] = ()
    ) -> str:
        """Make an attempt known to the proxy; returns the (unguessable) token its routes carry.

        ``sensitive_items`` are matched in the attempt's cloud-bound requests (exposures);
        ``sensitive_kinds`` (one per item) score the privacy guard's detector per kind.
        """
        return self.attempts.register(key, sensitive_items, sensitive_kinds)

    def guard_report(self, token: str) -> dict[str, Any] | None:
        """The attempt's privacy-guard counters (no values); None without a guard."""
        return self.attempts.guard_report(token)

    def base_url(self, upstream: str, token: str, agent: str | None = None) -> str:
        """The OpenAI base URL (ending in ``/v1``) to give an agent of the attempt ``token``."""
        if upstream not in self.upstreams:
            raise KeyError(f"unknown upstream {upstream!r}")
        if self._server is None:
            raise RuntimeError("proxy not started")
        agent_part = f"/g/{agent}" if agent else ""
        return f"{self.url}/u/{upstream}/a/{token}{agent_part}/v1"

    def exposures_seen(self, token: str) -> dict[str, tuple[float, str]]:
        """item -> (first time, where) for an attempt so far."""
        return self.attempts.exposures_seen(token)

    def unregister_attempt(self, token: str) -> None:
        """Forget an attempt: its routes answer 404 from now on."""
        self.attempts.unregister(token)

    # --- lifecycle --------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        self._server = await asyncio.start_server(
            self._serve_connection, "127.0.0.1", 0, limit=MAX_HEADER_BYTES
        )
        self.port = self._server.sockets[0].getsockname()[1]
        if self.raw_log_path is not None:
            self._raw_writer = RawLogWriter(self.raw_log_path, self.redactor)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            for task in list(self._connections):
                task.cancel()
            await asyncio.gather(*self._connections, return_exceptions=True)
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None
        for pool in self._pools.values():
            pool.close()
        if self._raw_writer is not None:
            self._raw_writer.close()
            self._raw_writer = None

    async def __aenter__(self) -> RecordingProxy:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # --- requests ---------------------------------------------------------------------------

    async def _serve_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        conn = AgentConnection(reader, writer)
        try:
            await serve_requests(conn, self._dispatch)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass
        except Exception:  # a bug here must cost one connection, not the harness
            log.exception("recording proxy: connection handler failed")
        finally:
            self._connections.discard(task)
            if conn.watch is not None and not conn.watch.done():
                conn.watch.cancel()
            with contextlib.suppress(Exception):
                writer.close()

    async def _dispatch(self, request: AgentRequest) -> bool:
        """Answer one request; returns whether the connection may carry another."""
        writer = request.conn.writer
        path = request.path
        if path == "/health":
            await send_json(writer, 200, {"status": "ok"}, request.keep_alive)
            return True
        route = parse_route(path)
        if route is None:
            await send_error(writer, 404, "not_found", "unknown route", True)
            return True
        name, token, agent, rest = route
        upstream = self.upstreams.get(name)
        context = self.attempts.get(token)
        if upstream is None or context is None:
            await send_error(writer, 404, "not_found", "unknown upstream or attempt", True)
            return True
        if request.method == "POST" and rest == "/chat/completions":
            return await self._proxy_chat(request, name, upstream, token, context, agent)
        return await self._proxy_plain(request, name, upstream, rest)

    async def _proxy_plain(self, request: AgentRequest, name: str, upstream: Upstream, rest: str) -> bool:
        """Anything but chat (``/v1/models``, ``/v1/completions``...): relayed, not measured."""
        writer = request.conn.writer
        headers = upstream.request_headers(request.headers)
        try:
            async with asyncio.timeout(upstream.timeout_s):
                response = await self._pools[name].request(request.method, rest, headers, request.body)
                try:
                    content = await response.read()
                finally:
                    response.release()
        except TimeoutError:
            message = f"no complete answer from the upstream in {upstream.timeout_s:g} s"
            await send_error(writer, 504, ErrorClass.TIMEOUT, message, True)
            return True
        except (OSError, asyncio.IncompleteReadError, MalformedResponse) as exc:
            await send_error(writer, 502, ErrorClass.CONNECTION, f"{type(exc).__name__}: {exc}", True)
            return True
        head = response_head(response.status, relayed_headers(response))
        writer.write((head + f"Content-Length: {len(content)}\r\n\r\n").encode("latin-1") + content)
        await writer.drain()
        return True

    async def _proxy_chat(
        self,
        request: AgentRequest,
        name: str,
        upstream: Upstream,
        token: str,
        context: AttemptContext,
        agent: str | None,
    ) -> bool:
        call_id = uuid.uuid4().hex[:16]
        request_id = request.header("x-request-id") or call_id
        # A client retry resends the same X-Request-ID: number the rows as the client would.
        retry = self.attempts.retry_number(token, request_id)
        chat = ChatRequest.of(request.body, upstream)
        headers = upstream.request_headers(request.headers)
        headers["X-Request-ID"] = request_id
        exposures = []
        guard = context.guard if upstream.is_cloud else None
        if upstream.is_cloud:
            seen: Any = chat.body if chat.body is not None else request.body.decode("utf-8", "replace")
            if guard is not None:
                self.attempts.observe_unguarded(token, seen, time.time())
                decision = guard_request(guard, chat)
                if decision.blocked:
                    return await self._refuse_chat(request, name, upstream, token, context, agent, decision)
                chat = chat.with_body(decision.body)
                seen = chat.body
            exposures = self.attempts.new_exposures(token, seen, time.time())
        conn = request.conn

        async def relay_and_record() -> bool:
            limiter = self._limiters.get(name)
            queued = time.monotonic()
            if limiter is not None:
                await limiter.acquire()
            try:
                queue_s = time.monotonic() - queued
                result, keep = await relay_chat(
                    conn.writer, self._pools[name], upstream, chat, headers, request.keep_alive, guard
                )
            finally:
                if limiter is not None:
                    limiter.release()
            # Recorded before this task yields again, so the call is in the trace before the
            # agent can act on its answer.
            result.queue_s = queue_s
            result.request_id = request_id
            if chat.body is not None and isinstance(chat.body.get("model"), str):
                result.model = chat.body["model"]
            result.request_body = chat.logged_body()  # as the cloud saw it (guarded)
            cost = 0.0
            if upstream.prices is not None and not result.error_class:
                cost = upstream.prices.cost(
                    result.prompt_tokens, result.cached_tokens, result.completion_tokens
                )
            self._record(CallRecord(
                call_id, name, upstream.endpoint, agent or name, token, context.key, result, exposures, cost, retry
            ), request)  # fmt: skip
            return keep

        return await watching_agent(conn, relay_and_record())

    def _record(self, record: CallRecord, request: AgentRequest) -> None:
        if self._raw_writer is not None:
            self._raw_writer.put(raw_log_line(record, request.headers))
        if self.on_call is not None:
            self.on_call(record)

    async def _refuse_chat(
        self,
        request: AgentRequest,
        name: str,
        upstream: Upstream,
        token: str,
        context: AttemptContext,
        agent: str | None,
        decision: GuardDecision,
    ) -> bool:
        """``--privacy-guard block``: nothing is sent upstream; the agent gets the guard's refusal
        (403, class ``privacy_blocked``) and the call is recorded with that class."""
        call_id = uuid.uuid4().hex[:16]
        request_id = request.header("x-request-id") or call_id
        retry = self.attempts.retry_number(token, request_id)
        result = blocked_result(upstream, decision, request_id)
        await send_error(request.conn.writer, 403, BLOCKED_ERROR, decision.blocked, request.keep_alive)
        record = CallRecord(
            call_id, name, upstream.endpoint, agent or name, token, context.key, result, [], 0.0, retry
        )
        self._record(record, request)
        return True
