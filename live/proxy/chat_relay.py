"""Relaying one chat request to its upstream and measuring the answer on the way through.

The answer is streamed to the agent as it arrives (the agent's own time to first token must
not grow), while the same bytes are read (``providers/chat_stream``, the chat client's own
reader) into the measurement the client would make: TTFT, gaps, tokens, finish reason, error
class. An answer that does not stream is
relayed whole and measured too (its TTFT is then its total time).

Failures are classified, never raised: an upstream that cannot be reached or breaks off is
``connection``, one that takes longer than its timeout is ``timeout``, bytes that are not HTTP
are ``bad_response``; when nothing was sent to the agent yet, it gets a 502/504 whose body
carries that class, so its client records the same class as the proxy. An agent that hangs up
(its task's deadline) abandons the upstream request (:func:`watching_agent`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agbench.attempt import ErrorClass
from agbench.live.privacy.rewrite import restore_answer
from agbench.live.privacy.stream import StreamRestorer
from agbench.live.providers.chat_result import AttemptRecord, ChatResult
from agbench.live.providers.chat_stream import ChatStreamReader, StreamAccumulator, finish_result
from agbench.live.providers.errors import classify_http_error, error_text, parse_retry_after
from agbench.live.proxy.agent_http import AgentConnection, response_head, send_error
from agbench.live.proxy.http1 import Http1Pool, Http1Response, MalformedResponse
from agbench.live.proxy.upstream import Upstream, relayed_headers

if TYPE_CHECKING:
    from agbench.live.privacy.guard import AttemptGuard

ABANDONED = "the agent closed its connection; the upstream request was abandoned"


@dataclass
class ChatRequest:
    """A chat request as forwarded: the agent's body, rewritten where the proxy must."""

    body: dict[str, Any] | None  # None when the agent's body is not a JSON object
    payload: bytes  # what is sent upstream
    max_tokens: int | None

    @classmethod
    def of(cls, raw: bytes, upstream: Upstream) -> ChatRequest:
        """The upstream's model replaces the agent's; a stream always asks for its usage."""
        try:
            body: Any = json.loads(raw or b"{}")
        except ValueError:
            body = None
        if not isinstance(body, dict):
            return cls(None, raw, None)
        if upstream.model:
            body["model"] = upstream.model
        if body.get("stream"):
            # Usage comes only with include_usage; clients ignore the extra final chunk.
            options = body.setdefault("stream_options", {})
            if isinstance(options, dict):
                options.setdefault("include_usage", True)
        mt = body.get("max_tokens", body.get("max_completion_tokens"))
        max_tokens = int(mt) if isinstance(mt, (int, float)) else None
        return cls(body, json.dumps(body).encode(), max_tokens)

    def with_body(self, body: dict[str, Any]) -> ChatRequest:
        """The same request with its body replaced (the privacy guard's rewrite)."""
        if body is self.body:
            return self
        return ChatRequest(body, json.dumps(body).encode(), self.max_tokens)

    def logged_body(self) -> dict[str, Any]:
        return self.body if self.body is not None else {"raw": self.payload.decode("utf-8", "replace")}


async def watching_agent(conn: AgentConnection, relay: Coroutine[Any, Any, bool]) -> bool:
    """Run ``relay``, abandoning it as soon as the agent hangs up.

    An agent cut off by its task's deadline closes its connection; the upstream request is
    then dropped too, so llama-server frees the slot instead of generating for no one (which
    would slow every other agent and skew the measurements). The read that watches for the
    hang-up stays on ``conn`` until the next request is read.
    """
    exchange = asyncio.create_task(relay)
    conn.watch = asyncio.create_task(conn.reader.read(1))
    try:
        done, _ = await asyncio.wait({exchange, conn.watch}, return_when=asyncio.FIRST_COMPLETED)
        if exchange not in done and conn.watch.exception() is None and not conn.watch.result():
            exchange.cancel()  # relay_chat records the call as abandoned and returns
        return await exchange
    finally:
        if not exchange.done():
            exchange.cancel()


class _AgentSide:
    """Writes to the agent, remembering when it has gone (writes then stop)."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        self.gone = False

    async def send(self, data: bytes) -> bool:
        if self.gone:
            return False
        try:
            self.writer.write(data)
            await self.writer.drain()
        except (ConnectionError, RuntimeError):
            self.gone = True
        return not self.gone


async def relay_chat(
    writer: asyncio.StreamWriter,
    pool: Http1Pool,
    upstream: Upstream,
    request: ChatRequest,
    headers: dict[str, str],
    keep_alive: bool,
    guard: AttemptGuard | None = None,
) -> tuple[ChatResult, bool]:
    """Forward one chat request and relay the answer, measuring it on the way.

    With ``guard``, the answer is restored (placeholders -> originals) on its way to the agent;
    the measurement and the raw log keep the upstream's own bytes.
    Returns the measurement and whether the agent's connection may carry another request.
    """
    t_wall = time.time()
    t0 = time.monotonic()
    result = ChatResult(endpoint=upstream.endpoint, model=upstream.model or "", t_start=t_wall)
    state = StreamAccumulator(t0)
    parser = ChatStreamReader(state)
    raw: list[bytes] = []
    agent = _AgentSide(writer)
    sent_head = body_complete = False
    retry_after: float | None = None
    response: Http1Response | None = None
    restorer = StreamRestorer(guard.placeholders) if guard is not None else None

    def failed(error_class: ErrorClass, message: str) -> None:
        # An error event or malformed data the stream already carried says more about the
        # answer than the transport trouble that followed it (see ``chat_stream``).
        if not parser.failed:
            result.error_class, result.error = error_class.value, message[:500]

    try:
        async with asyncio.timeout(upstream.timeout_s):
            response = await pool.request("POST", "/chat/completions", headers, request.payload)
            result.status_code = response.status
            retry_after = parse_retry_after(response.header("retry-after"))
            streaming = "text/event-stream" in (response.header("content-type") or "")
            head = response_head(response.status, relayed_headers(response))
            if streaming and response.status == 200:
                sent_head = await agent.send((head + "Transfer-Encoding: chunked\r\n\r\n").encode("latin-1"))
                async for chunk in response.body():
                    now = time.monotonic()
                    out = restorer.feed(chunk) if restorer is not None else chunk
                    if out and not await agent.send(b"%x\r\n%s\r\n" % (len(out), out)):
                        break
                    raw.append(chunk)
                    parser.feed(chunk, now)
                else:
                    parser.close(time.monotonic())
                    tail = restorer.close() if restorer is not None else b""
                    if tail:
                        await agent.send(b"%x\r\n%s\r\n" % (len(tail), tail))
                    body_complete = await agent.send(b"0\r\n\r\n")
            else:
                content = await response.read()
                raw.append(content)
                out = _restored_whole(content, guard) if guard is not None else content
                sent_head = body_complete = await agent.send(
                    (head + f"Content-Length: {len(out)}\r\n\r\n").encode("latin-1") + out
                )
                _measure_whole(result, state, response.status, content)
    except TimeoutError:
        failed(ErrorClass.TIMEOUT, f"no complete answer from the upstream in {upstream.timeout_s:g} s")
    except MalformedResponse as exc:
        failed(ErrorClass.BAD_RESPONSE, f"malformed response: {exc}")
    except asyncio.CancelledError:  # only watching_agent cancels this task
        agent.gone = True
    except (OSError, asyncio.IncompleteReadError) as exc:  # refused, reset, closed mid-body
        where = "mid-response" if result.status_code else "before answering"
        failed(ErrorClass.CONNECTION, f"{type(exc).__name__} {where}: {exc}")
    finally:
        if response is not None:
            response.release()
    end = time.monotonic()
    if result.error_class and not sent_head and not agent.gone:
        status = 504 if result.error_class == ErrorClass.TIMEOUT else 502
        with contextlib.suppress(ConnectionError, RuntimeError):
            await send_error(writer, status, result.error_class, result.error, keep_alive)
    finish_result(result, state, t0, end, request.max_tokens)
    if agent.gone:
        # Whatever the stream looked like when cut, the agent hanging up ended it.
        result.error_class, result.error = ErrorClass.CONNECTION.value, ABANDONED
    result.raw_response = b"".join(raw).decode("utf-8", "replace")
    result.attempts = [
        AttemptRecord(
            t_wall, result.total_s, result.status_code, result.error_class, result.error, retry_after
        )
    ]
    # The agent may reuse the connection only if what it was sent is framed completely.
    keep = keep_alive and not agent.gone and (body_complete or not sent_head)
    return result, keep


def _restored_whole(content: bytes, guard: AttemptGuard) -> bytes:
    """A whole (non-streamed) answer with the guard's placeholders restored."""
    try:
        parsed: Any = json.loads(content)
    except ValueError:
        return guard.placeholders.restore(content.decode("utf-8", "replace")).encode()
    return json.dumps(restore_answer(parsed, guard.placeholders), ensure_ascii=False).encode()


def _measure_whole(result: ChatResult, state: StreamAccumulator, status: int, content: bytes) -> None:
    """Measure an answer that came in one piece (not streamed, or an HTTP error)."""
    try:
        parsed: Any = json.loads(content)
    except ValueError:
        parsed = content.decode("utf-8", "replace")
    if status == 200 and isinstance(parsed, dict):
        try:
            state.feed(parsed, time.monotonic())
            state.done = True
        except (TypeError, ValueError, KeyError, AttributeError):
            state.malformed = True
    elif status != 200:
        result.error_class = classify_http_error(status, parsed).value
        result.error = error_text(parsed)[:500] or f"HTTP {status}"
    else:
        result.error_class = ErrorClass.BAD_RESPONSE.value
        result.error = "response is not a JSON object"
