"""Scripted, offline providers for unit tests only (never a measurement).

``MockChatClient`` answers ``chat()`` with the replies it was given, in order, so agent and
harness logic can be tested without a server; its results say ``endpoint="mock"`` and
``model="mock:<name>"`` so nothing produced with it can pass for a real measurement.
``FakeOpenAIServer`` is the same idea one level down: a scripted HTTP endpoint that sends
what real servers send when things go wrong (429 with Retry-After, malformed or truncated
streams, error events), for testing the client's and the proxy's error handling.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agbench.live.providers.chat_result import AttemptRecord, ChatResult
from agbench.live.providers.errors import ErrorClass
from agbench.live.sse import DONE_EVENT, encode_event


@dataclass
class MockReply:
    """One scripted answer: text and/or native tool calls, or an error class."""

    content: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str = "stop"
    error_class: ErrorClass = ErrorClass.NONE
    prompt_tokens: int = 10
    completion_tokens: int = 5


class MockChatClient:
    """Same ``chat`` signature as ChatClient; replays ``replies`` and records what it was sent."""

    def __init__(self, replies: Sequence[MockReply | str], name: str = "scripted") -> None:
        self.replies = [MockReply(content=r) if isinstance(r, str) else r for r in replies]
        self.model = f"mock:{name}"
        self.endpoint = "mock"
        self.requests: list[dict[str, Any]] = []

    async def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        max_tokens: int | None = None,
        extra_body: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> ChatResult:
        body = {"model": self.model, "messages": messages, "tools": tools, "max_tokens": max_tokens}
        self.requests.append(body)
        if not self.replies:
            raise AssertionError("MockChatClient ran out of scripted replies")
        reply = self.replies.pop(0)
        t = time.time()
        err = reply.error_class.value
        return ChatResult(
            endpoint="mock",
            model=self.model,
            t_start=t,
            content=reply.content,
            tool_calls=list(reply.tool_calls),
            finish_reason="" if err else reply.finish_reason,
            prompt_tokens=reply.prompt_tokens,
            completion_tokens=0 if err else reply.completion_tokens,
            ttft_s=None if err else 0.0,
            error_class=err,
            error=f"scripted {err}" if err else "",
            status_code=500 if err else 200,
            attempts=[AttemptRecord(t_start=t, status_code=500 if err else 200, error_class=err)],
            request_body=body,
        )

    async def aclose(self) -> None:
        return None


@dataclass
class FakeResponse:
    """One scripted HTTP answer of ``FakeOpenAIServer``.

    ``events`` are SSE ``data:`` payloads (dicts are JSON-encoded, strings sent verbatim);
    ``done`` appends ``data: [DONE]``; ``drop`` closes the connection in the middle of a
    chunked body (the transport breaks); ``hang_s`` waits before answering.
    """

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None  # a JSON body (dict) or raw text, for non-streamed answers
    events: list[Any] | None = None
    done: bool = True
    drop: bool = False
    hang_s: float = 0.0


def sse_answer(text: str, *, finish_reason: str = "stop", usage: dict[str, Any] | None = None) -> list[Any]:
    """The events of a plain streamed answer, one chunk per word."""
    words = text.split(" ")
    events: list[Any] = [
        {"id": "chatcmpl-fake", "choices": [{"index": 0, "delta": {"content": (" " if i else "") + w}}]}
        for i, w in enumerate(words)
    ]
    events.append(
        {"id": "chatcmpl-fake", "choices": [{"index": 0, "delta": {}, "finish_reason": finish_reason}]}
    )
    events.append(
        {
            "id": "chatcmpl-fake",
            "choices": [],
            "usage": usage or {"prompt_tokens": 7, "completion_tokens": len(words)},
        }
    )
    return events


class FakeOpenAIServer:
    """A scripted OpenAI-compatible HTTP server on 127.0.0.1, for unit tests of error paths.

    Answers requests with ``script`` in order (the last answer repeats) and keeps what it
    received in ``requests`` as (headers, body) pairs. Use ``async with``; ``url`` is the base.
    """

    def __init__(self, script: Sequence[FakeResponse]) -> None:
        self.script = list(script)
        self.requests: list[tuple[dict[str, str], Any]] = []
        self._server: Any = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def __aenter__(self) -> FakeOpenAIServer:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._server.close()

    async def _handle(self, reader: Any, writer: Any) -> None:
        try:
            line = await reader.readline()
            if not line:
                return
            headers: dict[str, str] = {}
            while (raw := await reader.readline()) not in (b"\r\n", b"\n", b""):
                k, _, v = raw.decode("latin-1").partition(":")
                headers[k.strip().lower()] = v.strip()
            body_bytes = await reader.readexactly(int(headers.get("content-length", "0")))
            try:
                body: Any = json.loads(body_bytes) if body_bytes else None
            except json.JSONDecodeError:
                body = body_bytes.decode("utf-8", "replace")
            self.requests.append((headers, body))
            reply = self.script.pop(0) if len(self.script) > 1 else self.script[0]
            if reply.hang_s:
                await asyncio.sleep(reply.hang_s)
            extra = "".join(f"{k}: {v}\r\n" for k, v in reply.headers.items())
            if reply.events is None:
                payload = reply.body if isinstance(reply.body, str) else json.dumps(reply.body or {})
                data = payload.encode()
                kind = "application/json" if not isinstance(reply.body, str) else "text/plain"
                writer.write(
                    f"HTTP/1.1 {reply.status} X\r\nContent-Type: {kind}\r\n{extra}"
                    f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode()
                    + data
                )
            else:
                writer.write(
                    f"HTTP/1.1 {reply.status} X\r\nContent-Type: text/event-stream\r\n{extra}"
                    "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n".encode()
                )
                for event in reply.events:
                    chunk = encode_event(event)
                    writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    await writer.drain()
                if reply.drop:
                    writer.write(b'40\r\ndata: {"choi')  # a chunk cut short, then the socket closes
                    await writer.drain()
                    writer.transport.abort()
                    return
                if reply.done:
                    writer.write(b"%x\r\n%s\r\n" % (len(DONE_EVENT), DONE_EVENT))
                writer.write(b"0\r\n\r\n")
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()
