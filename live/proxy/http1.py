"""The proxy's one upstream client: minimal HTTP/1.1 over asyncio streams.

httpx is what agents and the chat client use, but on the proxy's hot path its per-chunk
overhead (anyio and h11 layers for every SSE event) was most of the latency the proxy added.
The proxy needs only: send one request, read the status and headers, then stream the body
(chunked, sized or until close), with kept-alive connections reused. That is this module, and
every route (chat, measured, and the others, relayed) goes through it, so connection reuse,
timeouts and failures behave the same way on all of them.

Upstreams may be plain HTTP (local servers) or HTTPS (cloud APIs; the system's trust store).
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import urllib.parse
from collections.abc import AsyncIterator

from agbench.live.proxy.agent_http import header_value

_READ_LIMIT = 1 << 20


class UpstreamClosed(ConnectionError):
    """The upstream closed a fresh connection before sending any answer."""


class MalformedResponse(ValueError):
    """The upstream's status line, headers or chunk framing are not HTTP/1.1."""


class _Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.close()

    @property
    def usable(self) -> bool:
        return not self.reader.at_eof() and not self.writer.is_closing()


class Http1Response:
    """Status and headers of an answer; read its body once with ``body()`` or ``read()``."""

    def __init__(
        self, pool: Http1Pool, conn: _Connection, status: int, headers: list[tuple[str, str]]
    ) -> None:
        self._pool = pool
        self._conn: _Connection | None = conn
        self.status = status
        self.headers = headers
        self._complete = False
        self._keep = True  # False when the body ends with the connection

    def header(self, name: str) -> str | None:
        return header_value(self.headers, name)

    async def body(self) -> AsyncIterator[bytes]:
        """The body in pieces as they arrive (chunk framing removed)."""
        assert self._conn is not None, "body already read"
        reader = self._conn.reader
        if (self.header("transfer-encoding") or "").lower() == "chunked":
            while True:
                size_line = await reader.readline()
                if not size_line:
                    raise asyncio.IncompleteReadError(b"", None)
                try:
                    size = int(size_line.split(b";", 1)[0].strip(), 16)
                except ValueError:
                    raise MalformedResponse(f"bad chunk size line {size_line[:40]!r}") from None
                if size == 0:
                    while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    break
                data = await reader.readexactly(size)
                await reader.readexactly(2)
                yield data
        elif (length := self.header("content-length")) is not None:
            try:
                remaining = int(length)
            except ValueError:
                raise MalformedResponse(f"bad Content-Length {length[:40]!r}") from None
            while remaining > 0:
                data = await reader.read(min(remaining, 65536))
                if not data:
                    raise asyncio.IncompleteReadError(b"", remaining)
                remaining -= len(data)
                yield data
        else:  # delimited by the server closing the connection
            while data := await reader.read(65536):
                yield data
            self._keep = False
        self._complete = True

    async def read(self) -> bytes:
        return b"".join([piece async for piece in self.body()])

    def release(self) -> None:
        """Return the connection to the pool if the body was read whole and it may be reused."""
        conn, self._conn = self._conn, None
        if conn is None:
            return
        keep = self._complete and self._keep and (self.header("connection") or "").lower() != "close"
        if keep and conn.usable:
            self._pool.give_back(conn)
        else:
            conn.close()


class Http1Pool:
    """Kept-alive connections to one upstream origin (``http://h:p`` or ``https://h``)."""

    def __init__(self, base_url: str, connect_timeout_s: float = 10.0, max_idle: int = 32) -> None:
        parts = urllib.parse.urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r}")
        self.tls = parts.scheme == "https"
        self.host = parts.hostname
        self.port = parts.port or (443 if self.tls else 80)
        default_port = self.port == (443 if self.tls else 80)
        self.host_header = self.host if default_port else f"{self.host}:{self.port}"
        self.base_path = parts.path.rstrip("/")
        self.connect_timeout_s = connect_timeout_s
        self.max_idle = max_idle
        self._idle: list[_Connection] = []
        self._ssl = ssl.create_default_context() if self.tls else None

    async def _connect(self) -> _Connection:
        try:
            return await self._open()
        except TimeoutError:  # no connection: an infrastructure failure, not a slow answer
            raise ConnectionError(f"connecting to {self.host}:{self.port} timed out") from None

    async def _open(self) -> _Connection:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(
                self.host,
                self.port,
                ssl=self._ssl,
                server_hostname=self.host if self.tls else None,
                limit=_READ_LIMIT,
            ),
            self.connect_timeout_s,
        )
        return _Connection(reader, writer)

    def give_back(self, conn: _Connection) -> None:
        if len(self._idle) < self.max_idle:
            self._idle.append(conn)
        else:
            conn.close()

    def _take_idle(self) -> _Connection | None:
        while self._idle:
            conn = self._idle.pop()
            if conn.usable:
                return conn
            conn.close()
        return None

    async def request(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Http1Response:
        """Send a request to ``base path + path``; returns once the status and headers are in.

        A reused connection that the server had already closed (llama-server closes after
        every streamed answer) is replaced by a fresh one: the request never reached it.
        Raises OSError/ConnectionError (no connection), UpstreamClosed, MalformedResponse.
        """
        lines = [f"{method} {self.base_path}{path} HTTP/1.1", f"Host: {self.host_header}"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        lines.append(f"Content-Length: {len(body)}")
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        conn = self._take_idle()
        reused = conn is not None
        while True:
            if conn is None:
                conn = await self._connect()
            try:
                conn.writer.write(head + body)
                await conn.writer.drain()
                status_line = await conn.reader.readline()
                if not status_line:
                    raise UpstreamClosed("the upstream closed the connection before answering")
            except (UpstreamClosed, ConnectionResetError, BrokenPipeError):
                conn.close()
                if reused:
                    conn, reused = None, False
                    continue
                raise
            break
        try:
            version, status_text = status_line.decode("latin-1").split(" ", 2)[:2]
            status = int(status_text)
            if not version.startswith("HTTP/1."):
                raise ValueError(version)
        except ValueError:
            conn.close()
            raise MalformedResponse(f"bad status line {status_line[:60]!r}") from None
        response_headers: list[tuple[str, str]] = []
        while (raw := await conn.reader.readline()) not in (b"\r\n", b"\n", b""):
            name, sep, value = raw.decode("latin-1").partition(":")
            if not sep:
                conn.close()
                raise MalformedResponse(f"bad header line {raw[:60]!r}")
            response_headers.append((name.strip(), value.strip()))
        return Http1Response(self, conn, status, response_headers)

    def close(self) -> None:
        while self._idle:
            self._idle.pop().close()
