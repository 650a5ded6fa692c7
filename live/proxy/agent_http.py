"""The agent-facing side of the proxy: a minimal HTTP/1.1 server over asyncio streams.

Agents speak plain HTTP/1.1 to 127.0.0.1 (kept-alive connections, bodies sized by
Content-Length or chunked). A general server framework (aiohttp, uvicorn) would add per-request
and per-chunk layers to a path whose added latency is a measured figure
(``bench/proxy_overhead.py``), and the proxy needs only: read one request, answer it (a JSON
error, a relayed body, or a relayed stream the relay writes itself), and notice when an agent
hangs up mid-answer.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

MAX_HEADER_BYTES = 64 * 1024
MAX_BODY_BYTES = 64 * 1024 * 1024


class BadRequest(Exception):
    """What the agent sent is not an HTTP/1.1 request this server accepts (answered 400)."""


@dataclass
class AgentConnection:
    """One agent's connection to the proxy; ``carry`` holds bytes read ahead of the next request."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    carry: bytes = b""
    watch: asyncio.Task[bytes] | None = None  # a read watching for the agent hanging up

    async def settle_watch(self) -> None:
        """End the watching read before the next request is read; keep any byte it got."""
        watch, self.watch = self.watch, None
        if watch is None:
            return
        if not watch.done():
            watch.cancel()
        await asyncio.wait({watch})
        if not watch.cancelled() and watch.exception() is None:
            self.carry += watch.result()


@dataclass
class AgentRequest:
    """One request as the agent sent it."""

    method: str
    target: str
    version: str
    headers: list[tuple[str, str]]
    body: bytes
    conn: AgentConnection

    def header(self, name: str) -> str | None:
        return header_value(self.headers, name)

    @property
    def path(self) -> str:
        return self.target.split("?", 1)[0]

    @property
    def keep_alive(self) -> bool:
        conn = (self.header("connection") or "").lower()
        if self.version == "HTTP/1.0":
            return conn == "keep-alive"
        return conn != "close"


async def read_request(conn: AgentConnection) -> AgentRequest | None:
    """The next request on ``conn``; None when the agent closed it. Raises :class:`BadRequest`."""
    await conn.settle_watch()
    reader = conn.reader
    line, conn.carry = conn.carry, b""
    try:
        if not line.endswith(b"\n"):
            line += await reader.readline()
    except (asyncio.LimitOverrunError, ValueError) as exc:
        raise BadRequest("request line too long") from exc
    if not line:
        return None
    parts = line.decode("latin-1").strip().split()
    if len(parts) != 3:
        raise BadRequest("malformed request line")
    method, target, version = parts
    headers: list[tuple[str, str]] = []
    total = 0
    while True:
        raw = await reader.readline()
        total += len(raw)
        if total > MAX_HEADER_BYTES:
            raise BadRequest("headers too large")
        if raw in (b"\r\n", b"\n", b""):
            break
        name, _, value = raw.decode("latin-1").partition(":")
        headers.append((name.strip(), value.strip()))
    request = AgentRequest(method.upper(), target, version, headers, b"", conn)
    if (request.header("expect") or "").lower() == "100-continue":
        conn.writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")  # curl waits a second for this otherwise
    request.body = await _read_body(request, reader)
    return request


async def serve_requests(conn: AgentConnection, answer: Callable[[AgentRequest], Awaitable[bool]]) -> None:
    """Answer the requests on one connection in turn until either side ends it.

    ``answer`` answers one request and says whether the connection may carry another; a
    request that is not HTTP/1.1 is answered 400 and ends the connection. The caller keeps
    what a connection's end means to it (transport errors, cancellation, closing the writer).
    """
    while True:
        try:
            request = await read_request(conn)
        except BadRequest as exc:
            await send_error(conn.writer, 400, "bad_request", str(exc), False)
            return
        if request is None or not await answer(request) or not request.keep_alive:
            return


async def _read_body(request: AgentRequest, reader: asyncio.StreamReader) -> bytes:
    if (request.header("transfer-encoding") or "").lower() == "chunked":
        chunks: list[bytes] = []
        size_total = 0
        while True:
            size_line = await reader.readline()
            try:
                size = int(size_line.split(b";")[0].strip() or b"0", 16)
            except ValueError:
                raise BadRequest("bad chunk size line") from None
            if size == 0:
                while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                    pass
                break
            size_total += size
            if size_total > MAX_BODY_BYTES:
                raise BadRequest("body too large")
            chunks.append(await reader.readexactly(size))
            await reader.readexactly(2)
        return b"".join(chunks)
    try:
        length = int(request.header("content-length") or 0)
    except ValueError:
        raise BadRequest("bad Content-Length") from None
    if length > MAX_BODY_BYTES:
        raise BadRequest("body too large")
    return await reader.readexactly(length) if length > 0 else b""


def header_value(headers: list[tuple[str, str]], name: str) -> str | None:
    """The first value of header ``name`` (any case): HTTP/1.1 header names are case-insensitive."""
    name = name.lower()
    for k, v in headers:
        if k.lower() == name:
            return v
    return None


def reason_phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


def response_head(status: int, headers: list[tuple[str, str]]) -> str:
    """Status line and headers, without the blank line that ends them."""
    head = f"HTTP/1.1 {status} {reason_phrase(status)}\r\n"
    return head + "".join(f"{k}: {v}\r\n" for k, v in headers)


async def send_json(writer: asyncio.StreamWriter, status: int, body: Any, keep_alive: bool) -> None:
    data = json.dumps(body).encode()
    head = response_head(
        status,
        [
            ("Content-Type", "application/json"),
            ("Content-Length", str(len(data))),
            ("Connection", "keep-alive" if keep_alive else "close"),
        ],
    )
    writer.write((head + "\r\n").encode("latin-1") + data)
    await writer.drain()


async def send_error(
    writer: asyncio.StreamWriter, status: int, kind: str, message: str, keep_alive: bool
) -> None:
    """An OpenAI-style error body (``{"error": {"type", "message"}}``), which clients classify."""
    await send_json(writer, status, {"error": {"type": kind, "message": message}}, keep_alive)
