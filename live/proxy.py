"""The recording proxy: the only way agents reach a model, and where every call is measured.

Agents (and anything running in a sandbox) are given a base URL on this proxy instead of a
model server's URL. The route names the upstream and the task attempt,
``/u/<upstream>/a/<token>[/g/<agent>]/v1/chat/completions``, so each request is attributed to
(local or cloud, task attempt, agent) without trusting anything the agent sends. The proxy:

- forwards the request to the upstream and streams the answer back as it arrives;
- holds the upstream's API key itself (agents never see it; any Authorization an agent sends
  is dropped);
- measures the call exactly as ``ChatClient`` does (same stream accumulator, same error
  classes) and hands a ``CallRecord`` to ``on_call`` (ModelCall rows + new Exposures);
- appends the raw request and response to ``raw_responses.jsonl`` after removing secrets;
- for cloud-bound requests, matches the attempt's sensitive items in the payload;
- drops the upstream request when the agent hangs up (a task deadline), so the local server
  does not keep a slot busy for nobody;
- numbers client retries (same ``X-Request-ID``) the way the client does.

The call is recorded before the agent can act on the answer (``on_call`` runs in the task
that writes the answer's last byte). A request that does not stream is measured too, but its
TTFT is then its total time. Other routes (``/v1/models`` ...) are relayed, not recorded.

It is a minimal asyncio HTTP/1.1 server (keep-alive, Content-Length or chunked bodies), not
aiohttp, and it reaches upstreams through ``live/http1.py``, not httpx: the proxy needs one
route shape and a streamed relay, and the generic libraries' per-chunk overhead was most of
the latency it added. ``bench/proxy_overhead.py`` measures what it adds.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import queue
import secrets as token_source
import threading
import time
import uuid
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from agbench.config import PriceTable
from agbench.live.exposure import ExposureTracker
from agbench.live.http1 import Http1Pool, Http1Response, MalformedResponse
from agbench.live.providers.errors import ErrorClass, classify_http_error, error_text, parse_retry_after
from agbench.live.providers.openai_compatible import (
    AttemptRecord,
    ChatResult,
    StreamAccumulator,
    api_base,
    finish_result,
)
from agbench.live.secrets import Redactor
from agbench.records import Exposure, ModelCall

# Hop-by-hop and framing headers are the proxy's own business on each side.
_DROP_REQUEST_HEADERS = frozenset(
    {"host", "content-length", "transfer-encoding", "connection", "keep-alive", "authorization",
     "proxy-authorization", "x-api-key", "api-key", "accept-encoding", "upgrade", "te", "trailer"}
)  # fmt: skip
_PASS_RESPONSE_HEADERS = ("content-type", "retry-after", "x-request-id", "openai-processing-ms")
_MAX_HEADER_BYTES = 64 * 1024
log = logging.getLogger(__name__)
_MAX_BODY_BYTES = 64 * 1024 * 1024


@dataclass
class Upstream:
    """A model endpoint behind the proxy. ``api_key`` stays in the harness process."""

    base_url: str  # e.g. http://127.0.0.1:8080 or https://api.example.com (with or without /v1)
    endpoint: str = "local"  # "local" | "cloud": labels trace rows; "cloud" enables exposure checks
    api_key: str | None = field(default=None, repr=False)
    model: str | None = None  # when set, replaces the model name the agent asked for
    max_concurrent: int | None = None  # the harness's own limiter; waiting on it is queue_s
    prices: PriceTable | None = None  # cost per call (cloud)
    timeout_s: float = 600.0

    def v1_url(self, rest: str) -> str:
        """``rest`` (e.g. ``/chat/completions``) under this upstream's OpenAI API base."""
        return str(api_base(self.base_url)) + rest


@dataclass(frozen=True)
class AttemptContext:
    """Who a request belongs to: the trace keys of one task attempt."""

    run_id: str
    device: str
    architecture: str
    concurrency: int
    task: str
    attempt: int
    sensitive_items: tuple[str, ...] = ()


@dataclass
class CallRecord:
    """One proxied chat call: its measurement, its attribution and any new exposures."""

    call_id: str
    upstream: str
    endpoint: str
    agent: str
    token: str
    context: AttemptContext
    result: ChatResult
    exposures: list[Exposure]
    cost_usd: float = 0.0
    retry: int = 0  # earlier requests of this attempt with the same X-Request-ID (client retries)

    def model_calls(self) -> list[ModelCall]:
        c = self.context
        rows: list[ModelCall] = self.result.model_calls(
            run_id=c.run_id,
            device=c.device,
            architecture=c.architecture,
            concurrency=c.concurrency,
            task=c.task,
            attempt=c.attempt,
            agent=self.agent,
            call_id=self.call_id,
            cost_usd=self.cost_usd,
        )
        rows[-1].retry += self.retry
        return rows


class RawLogWriter:
    """Appends redacted JSON lines to ``raw_responses.jsonl`` from a thread of its own.

    Redacting and encoding a call's bodies takes a fraction of a millisecond, and a flush can
    block on a slow disk: neither should delay the next request the event loop relays. Each
    line is flushed as written, so a killed run keeps every call answered before it.
    """

    def __init__(self, path: Path, redactor: Redactor) -> None:
        self.path = path
        self.redactor = redactor
        self._queue: queue.SimpleQueue[dict[str, Any] | None] = queue.SimpleQueue()
        self._file = path.open("a", encoding="utf-8")
        self._thread = threading.Thread(target=self._run, name="agbench-raw-log", daemon=True)
        self._thread.start()

    def put(self, line: dict[str, Any]) -> None:
        self._queue.put(line)

    def _run(self) -> None:
        while (line := self._queue.get()) is not None:
            self._file.write(json.dumps(self.redactor.data(line), ensure_ascii=False) + "\n")
            self._file.flush()

    def close(self) -> None:
        """Write what is queued, then close the file."""
        self._queue.put(None)
        self._thread.join()
        self._file.close()


@dataclass
class _AgentConnection:
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


class _Request:
    def __init__(self, method: str, target: str, version: str, headers: list[tuple[str, str]], body: bytes):
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
        self.conn: _AgentConnection | None = None

    def header(self, name: str) -> str | None:
        name = name.lower()
        for k, v in self.headers:
            if k.lower() == name:
                return v
        return None

    @property
    def keep_alive(self) -> bool:
        conn = (self.header("connection") or "").lower()
        if self.version == "HTTP/1.0":
            return conn == "keep-alive"
        return conn != "close"


class _BadRequest(Exception):
    pass


class RecordingProxy:
    """An OpenAI-compatible proxy on 127.0.0.1 in the harness's event loop.

    ``on_call`` is called (in the event loop, must not block) once per chat request, after the
    answer has been fully relayed. ``sensitive_lookup(task_id)`` supplies an attempt's
    sensitive items when its context has none. Upstreams can be given at construction or
    added later (``add_upstream`` / ``set_upstream``), e.g. once the servers have started;
    ``RecordingProxy(raw_log_path)`` is accepted too. Use ``async with RecordingProxy(...)``
    or ``await start()`` / ``await stop()``.
    """

    def __init__(
        self,
        upstreams: dict[str, Upstream] | Path | str | None = None,
        raw_log: Path | str | None = None,
        on_call: Callable[[CallRecord], None] | None = None,
        sensitive_lookup: Callable[[str], list[str]] | None = None,
        *,
        port: int = 0,
        redactor: Redactor | None = None,
    ) -> None:
        if isinstance(upstreams, (str, Path)):  # RecordingProxy(raw_log): upstreams set later
            upstreams, raw_log = None, upstreams
        self.upstreams: dict[str, Upstream] = {}
        self.raw_log = Path(raw_log) if raw_log is not None else None
        self.on_call = on_call
        self.sensitive_lookup = sensitive_lookup
        self.port = port
        self.redactor = redactor or Redactor()
        self._contexts: dict[str, AttemptContext] = {}
        self._trackers: dict[str, ExposureTracker] = {}
        self._request_counts: dict[str, dict[str, int]] = {}  # token -> X-Request-ID -> requests
        self._tokens: dict[tuple[str, str, str, int], str] = {}
        self._limiters: dict[str, asyncio.Semaphore] = {}
        self._clients: dict[str, httpx.AsyncClient] = {}
        self._retired: list[httpx.AsyncClient] = []
        self._pools: dict[str, Http1Pool] = {}  # the chat hot path (see live/http1.py)
        self._server: asyncio.Server | None = None
        self._raw_writer: RawLogWriter | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self.calls = 0
        for name, upstream in (upstreams or {}).items():
            self.add_upstream(name, upstream)

    # --- upstreams --------------------------------------------------------------------------

    def add_upstream(self, name: str, upstream: Upstream) -> None:
        """Add (or replace) an upstream; its API key is added to the redaction list."""
        if not name or "/" in name:
            raise ValueError(f"bad upstream name {name!r}")
        self.upstreams[name] = upstream
        if upstream.api_key:
            self.redactor.add(upstream.api_key)
        if upstream.max_concurrent:
            self._limiters[name] = asyncio.Semaphore(upstream.max_concurrent)
        else:
            self._limiters.pop(name, None)
        old = self._clients.pop(name, None)
        if old is not None:
            self._retired.append(old)  # may still be relaying a call; closed by stop()
        old_pool = self._pools.pop(name, None)
        if old_pool is not None:
            old_pool.close()
        self._pools[name] = Http1Pool(api_base(upstream.base_url))
        if self._server is not None:
            self._clients[name] = self._new_client(upstream)

    def set_upstream(
        self, name: str, url: str, *, api_key: str | None = None, endpoint: str | None = None, **options: Any
    ) -> None:
        """Shorthand for ``add_upstream(name, Upstream(url, ...))``; ``endpoint`` defaults to
        "cloud" for an upstream named cloud, else "local"."""
        kind = endpoint or ("cloud" if name.startswith("cloud") else "local")
        self.add_upstream(name, Upstream(url, endpoint=kind, api_key=api_key, **options))

    @staticmethod
    def _new_client(upstream: Upstream) -> httpx.AsyncClient:
        timeout = httpx.Timeout(upstream.timeout_s, connect=min(10.0, upstream.timeout_s))
        limits = httpx.Limits(max_connections=256, max_keepalive_connections=64)
        return httpx.AsyncClient(timeout=timeout, limits=limits, trust_env=False)

    # --- attempts ---------------------------------------------------------------------------

    def register_attempt(self, context: AttemptContext, token: str | None = None) -> str:
        """Make an attempt known to the proxy; returns its (unguessable) token."""
        token = token or token_source.token_urlsafe(12)
        if "/" in token:
            raise ValueError("token must not contain '/'")
        self._contexts[token] = context
        items = list(context.sensitive_items)
        if not items and self.sensitive_lookup is not None:
            items = list(self.sensitive_lookup(context.task))
        self._trackers[token] = ExposureTracker(items)
        return token

    def route_url(
        self,
        upstream: str,
        *,
        run_id: str,
        config: str,
        task: str,
        attempt: int,
        agent: str | None = None,
        sensitive_items: tuple[str, ...] = (),
    ) -> str:
        """Register the attempt ``(run_id, config key, task, attempt)`` if new and return the base
        URL an agent of it should use for ``upstream``. Sensitive items come from
        ``sensitive_items`` or, when empty, from ``sensitive_lookup(task)``."""
        key = (run_id, config, task, attempt)
        token = self._tokens.get(key)
        if token is None:
            from agbench.config import Configuration

            cfg = Configuration.from_key(config)
            context = AttemptContext(
                run_id,
                cfg.device,
                cfg.architecture.value,
                cfg.concurrency,
                task,
                attempt,
                tuple(sensitive_items),
            )
            token = self.register_attempt(context)
            self._tokens[key] = token
        return self.base_url(upstream, token, agent)

    def exposed_items(
        self, *, run_id: str, config: str, task: str, attempt: int
    ) -> dict[str, tuple[float, str]]:
        """Sensitive items seen so far in the cloud-bound requests of a ``route_url`` attempt."""
        token = self._tokens.get((run_id, config, task, attempt))
        return self.exposures_seen(token) if token else {}

    def unregister_attempt(self, token: str) -> None:
        self._contexts.pop(token, None)
        self._trackers.pop(token, None)
        self._request_counts.pop(token, None)

    def exposures_seen(self, token: str) -> dict[str, tuple[float, str]]:
        """item -> (first time, where) for an attempt so far."""
        tracker = self._trackers.get(token)
        return dict(tracker.seen) if tracker else {}

    def base_url(self, upstream: str, token: str, agent: str | None = None) -> str:
        """The OpenAI base URL (ending in ``/v1``) to give an agent."""
        if upstream not in self.upstreams:
            raise KeyError(f"unknown upstream {upstream!r}")
        if self._server is None:
            raise RuntimeError("proxy not started")
        agent_part = f"/g/{agent}" if agent else ""
        return f"http://127.0.0.1:{self.port}/u/{upstream}/a/{token}{agent_part}/v1"

    # --- lifecycle --------------------------------------------------------------------------

    async def start(self) -> None:
        self._server = await asyncio.start_server(
            self._serve_connection, "127.0.0.1", self.port, limit=_MAX_HEADER_BYTES
        )
        self.port = self._server.sockets[0].getsockname()[1]
        for name, up in self.upstreams.items():
            self._clients[name] = self._new_client(up)
        if self.raw_log is not None:
            self.raw_log.parent.mkdir(parents=True, exist_ok=True)
            self._raw_writer = RawLogWriter(self.raw_log, self.redactor)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            for task in list(self._connections):
                task.cancel()
            await asyncio.gather(*self._connections, return_exceptions=True)
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None
        for client in [*self._clients.values(), *self._retired]:
            await client.aclose()
        self._clients.clear()
        self._retired.clear()
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

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # --- HTTP -------------------------------------------------------------------------------

    async def _serve_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        conn = _AgentConnection(reader, writer)
        try:
            while True:
                try:
                    request = await self._read_request(conn)
                except _BadRequest as exc:
                    await self._send_json(
                        writer, 400, {"error": {"type": "bad_request", "message": str(exc)}}, False
                    )
                    break
                if request is None:
                    break
                keep = await self._dispatch(request, writer)
                if not keep or not request.keep_alive:
                    break
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

    async def _read_request(self, conn: _AgentConnection) -> _Request | None:
        await conn.settle_watch()
        reader, writer = conn.reader, conn.writer
        line, conn.carry = conn.carry, b""
        try:
            if not line.endswith(b"\n"):
                line += await reader.readline()
        except (asyncio.LimitOverrunError, ValueError) as exc:
            raise _BadRequest("request line too long") from exc
        if not line:
            return None
        parts = line.decode("latin-1").strip().split()
        if len(parts) != 3:
            raise _BadRequest("malformed request line")
        method, target, version = parts
        headers: list[tuple[str, str]] = []
        total = 0
        while True:
            raw = await reader.readline()
            total += len(raw)
            if total > _MAX_HEADER_BYTES:
                raise _BadRequest("headers too large")
            if raw in (b"\r\n", b"\n", b""):
                break
            name, _, value = raw.decode("latin-1").partition(":")
            headers.append((name.strip(), value.strip()))
        request = _Request(method.upper(), target, version, headers, b"")
        request.conn = conn
        if (request.header("expect") or "").lower() == "100-continue":
            writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")  # curl waits a second for this otherwise
        if (request.header("transfer-encoding") or "").lower() == "chunked":
            chunks: list[bytes] = []
            size_total = 0
            while True:
                size_line = await reader.readline()
                size = int(size_line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                        pass
                    break
                size_total += size
                if size_total > _MAX_BODY_BYTES:
                    raise _BadRequest("body too large")
                chunks.append(await reader.readexactly(size))
                await reader.readexactly(2)
            request.body = b"".join(chunks)
        else:
            length = int(request.header("content-length") or 0)
            if length > _MAX_BODY_BYTES:
                raise _BadRequest("body too large")
            request.body = await reader.readexactly(length) if length else b""
        return request

    @staticmethod
    async def _send_json(writer: asyncio.StreamWriter, status: int, body: Any, keep_alive: bool) -> None:
        data = json.dumps(body).encode()
        head = (
            f"HTTP/1.1 {status} {_reason(status)}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\nConnection: {'keep-alive' if keep_alive else 'close'}\r\n\r\n"
        )
        writer.write(head.encode("latin-1") + data)
        await writer.drain()

    async def _dispatch(self, request: _Request, writer: asyncio.StreamWriter) -> bool:
        path = request.target.split("?", 1)[0]
        if path == "/health":
            await self._send_json(writer, 200, {"status": "ok"}, request.keep_alive)
            return True
        route = _parse_route(path)
        if route is None:
            await self._send_json(
                writer, 404, {"error": {"type": "not_found", "message": "unknown route"}}, True
            )
            return True
        upstream_name, token, agent, rest = route
        upstream = self.upstreams.get(upstream_name)
        context = self._contexts.get(token)
        if upstream is None or context is None:
            await self._send_json(
                writer, 404, {"error": {"type": "not_found", "message": "unknown upstream or attempt"}}, True
            )
            return True
        if request.method == "POST" and rest == "/chat/completions":
            return await self._proxy_chat(request, writer, upstream_name, upstream, token, context, agent)
        return await self._proxy_plain(request, writer, upstream_name, upstream, rest)

    def _upstream_headers(self, request: _Request, upstream: Upstream) -> dict[str, str]:
        headers = {k: v for k, v in request.headers if k.lower() not in _DROP_REQUEST_HEADERS}
        if upstream.api_key:
            headers["Authorization"] = f"Bearer {upstream.api_key}"
        return headers

    async def _proxy_plain(
        self, request: _Request, writer: asyncio.StreamWriter, name: str, upstream: Upstream, rest: str
    ) -> bool:
        """Anything but chat (``/v1/models``, ``/v1/completions``...): relayed, not measured."""
        try:
            response = await self._clients[name].request(
                request.method,
                upstream.v1_url(rest),
                content=request.body or None,
                headers=self._upstream_headers(request, upstream),
            )
        except httpx.HTTPError as exc:
            await self._send_json(writer, 502, {"error": {"type": "connection", "message": str(exc)}}, True)
            return True
        head = f"HTTP/1.1 {response.status_code} {_reason(response.status_code)}\r\n"
        head += "".join(
            f"{k}: {response.headers[k]}\r\n" for k in _PASS_RESPONSE_HEADERS if k in response.headers
        )
        head += f"Content-Length: {len(response.content)}\r\n\r\n"
        writer.write(head.encode("latin-1") + response.content)
        await writer.drain()
        return True

    async def _proxy_chat(
        self,
        request: _Request,
        writer: asyncio.StreamWriter,
        name: str,
        upstream: Upstream,
        token: str,
        context: AttemptContext,
        agent: str | None,
    ) -> bool:
        call_id = uuid.uuid4().hex[:16]
        request_id = request.header("x-request-id") or call_id
        # A client retry resends the same X-Request-ID: number the rows as the client would.
        sent_before = self._request_counts.setdefault(token, {})
        retry = sent_before.get(request_id, 0)
        sent_before[request_id] = retry + 1
        try:
            body: Any = json.loads(request.body or b"{}")
        except json.JSONDecodeError:
            body = None
        max_tokens: int | None = None
        if isinstance(body, dict):
            if upstream.model:
                body["model"] = upstream.model
            if body.get("stream"):
                # Usage comes only with include_usage; clients ignore the extra final chunk.
                options = body.setdefault("stream_options", {})
                if isinstance(options, dict):
                    options.setdefault("include_usage", True)
            mt = body.get("max_tokens", body.get("max_completion_tokens"))
            max_tokens = int(mt) if isinstance(mt, (int, float)) else None
            payload = json.dumps(body).encode()
        else:
            payload = request.body
        headers = self._upstream_headers(request, upstream)
        headers["X-Request-ID"] = request_id

        exposures: list[Exposure] = []
        if upstream.endpoint == "cloud":
            tracker = self._trackers.get(token)
            if tracker is not None:
                now = time.time()
                for item, where in tracker.observe(
                    body if body is not None else request.body.decode("utf-8", "replace"), now
                ):
                    exposures.append(
                        Exposure(context.run_id, context.device, context.architecture, context.concurrency,
                                 context.task, context.attempt, item, now, where)
                    )  # fmt: skip

        conn = request.conn
        assert conn is not None

        async def relay_and_record() -> bool:
            limiter = self._limiters.get(name)
            queued = time.monotonic()
            if limiter is not None:
                await limiter.acquire()
            try:
                queue_s = time.monotonic() - queued
                result, keep = await self._relay(
                    conn.writer, name, upstream, payload, headers, max_tokens, request.keep_alive
                )
            finally:
                if limiter is not None:
                    limiter.release()
            # Recorded before this task yields again, so the call is in the trace before the
            # agent can act on its answer.
            result.queue_s = queue_s
            result.request_id = request_id
            if isinstance(body, dict) and isinstance(body.get("model"), str):
                result.model = body["model"]
            result.request_body = (
                body if isinstance(body, dict) else {"raw": request.body.decode("utf-8", "replace")}
            )
            cost = 0.0
            if upstream.prices is not None and not result.error_class:
                cost = upstream.prices.cost(
                    result.prompt_tokens, result.cached_tokens, result.completion_tokens
                )
            record = CallRecord(
                call_id,
                name,
                upstream.endpoint,
                agent or name,
                token,
                context,
                result,
                exposures,
                cost,
                retry,
            )
            self.calls += 1
            self._write_raw(record, request)
            if self.on_call is not None:
                self.on_call(record)
            return keep

        return await self._watching_agent(conn, relay_and_record())

    async def _watching_agent(self, conn: _AgentConnection, relay: Coroutine[Any, Any, bool]) -> bool:
        """Run ``relay``, abandoning it as soon as the agent hangs up.

        An agent cut off by its task's deadline closes its connection; the upstream request is
        then dropped too, so llama-server frees the slot instead of generating for no one
        (which would slow every other agent and skew the measurements). The read that watches
        for the hang-up stays on ``conn`` until the next request is read.
        """
        exchange = asyncio.create_task(relay)
        conn.watch = asyncio.create_task(conn.reader.read(1))
        try:
            done, _ = await asyncio.wait({exchange, conn.watch}, return_when=asyncio.FIRST_COMPLETED)
            if exchange not in done and conn.watch.exception() is None and not conn.watch.result():
                exchange.cancel()  # _relay records the call as abandoned and returns
            return await exchange
        finally:
            if not exchange.done():
                exchange.cancel()

    async def _relay(
        self,
        writer: asyncio.StreamWriter,
        name: str,
        upstream: Upstream,
        payload: bytes,
        headers: dict[str, str],
        max_tokens: int | None,
        keep_alive: bool,
    ) -> tuple[ChatResult, bool]:
        """Forward one chat request and stream the answer back, measuring it on the way."""
        t_wall = time.time()
        t0 = time.monotonic()
        result = ChatResult(endpoint=upstream.endpoint, model=upstream.model or "", t_start=t_wall)
        state = StreamAccumulator(t0)
        raw: list[bytes] = []
        sent_head = False
        body_complete = False
        client_gone = False
        retry_after: float | None = None
        pool = self._pools[name]
        response: Http1Response | None = None

        async def to_agent(data: bytes) -> bool:
            nonlocal client_gone
            if client_gone:
                return False
            try:
                writer.write(data)
                await writer.drain()
            except (ConnectionError, RuntimeError):
                client_gone = True
            return not client_gone

        try:
            async with asyncio.timeout(upstream.timeout_s):
                response = await pool.request("POST", "/chat/completions", headers, payload)
                result.status_code = response.status
                retry_after = parse_retry_after(response.header("retry-after"))
                streaming = "text/event-stream" in (response.header("content-type") or "")
                head = f"HTTP/1.1 {response.status} {_reason(response.status)}\r\n"
                for key in _PASS_RESPONSE_HEADERS:
                    value = response.header(key)
                    if value is not None:
                        head += f"{key}: {value}\r\n"
                if streaming and response.status == 200:
                    sent_head = await to_agent(
                        (head + "Transfer-Encoding: chunked\r\n\r\n").encode("latin-1")
                    )
                    pending = b""
                    async for chunk in response.body():
                        now = time.monotonic()
                        if not await to_agent(b"%x\r\n%s\r\n" % (len(chunk), chunk)):
                            break
                        raw.append(chunk)
                        pending += chunk
                        *lines, pending = pending.split(b"\n")
                        for line in lines:
                            self._feed_line(state, line, now)
                    if pending:
                        self._feed_line(state, pending, time.monotonic())
                    body_complete = await to_agent(b"0\r\n\r\n")
                else:
                    content = await response.read()
                    raw.append(content)
                    sent_head = body_complete = await to_agent(
                        (head + f"Content-Length: {len(content)}\r\n\r\n").encode("latin-1") + content
                    )
                    try:
                        parsed: Any = json.loads(content)
                    except json.JSONDecodeError:
                        parsed = content.decode("utf-8", "replace")
                    if response.status == 200 and isinstance(parsed, dict):
                        state.feed(parsed, time.monotonic())
                        state.done = True
                    elif response.status != 200:
                        result.error_class = classify_http_error(response.status, parsed).value
                        result.error = error_text(parsed)[:500] or f"HTTP {response.status}"
                    else:
                        result.error_class = ErrorClass.BAD_RESPONSE.value
                        result.error = "response is not a JSON object"
        except TimeoutError:
            result.error_class = ErrorClass.TIMEOUT.value
            result.error = f"no complete answer from the upstream in {upstream.timeout_s:g} s"
        except MalformedResponse as exc:
            result.error_class, result.error = (
                ErrorClass.BAD_RESPONSE.value,
                f"malformed response: {exc}"[:500],
            )
        except asyncio.CancelledError:  # only _relay_watching_agent cancels this task
            client_gone = True
            result.error_class = ErrorClass.CONNECTION.value
            result.error = "the agent closed its connection; the upstream request was abandoned"
        except (OSError, asyncio.IncompleteReadError) as exc:  # refused, reset, closed mid-body
            where = "mid-response" if result.status_code else "before answering"
            result.error_class = ErrorClass.CONNECTION.value
            result.error = f"{type(exc).__name__} {where}: {exc}"[:500]
        finally:
            if response is not None:
                response.release()
        end = time.monotonic()
        if result.error_class and not sent_head and not client_gone:
            status = 504 if result.error_class == ErrorClass.TIMEOUT else 502
            with contextlib.suppress(ConnectionError, RuntimeError):
                await self._send_json(
                    writer,
                    status,
                    {"error": {"type": result.error_class, "message": result.error}},
                    keep_alive,
                )
        finish_result(result, state, t0, end, max_tokens)
        if client_gone and "abandoned" not in result.error:
            # Whatever the stream looked like when cut, the agent hanging up ended it.
            result.error_class = ErrorClass.CONNECTION.value
            result.error = "the agent closed its connection; the upstream request was abandoned"
        result.raw_response = b"".join(raw).decode("utf-8", "replace")
        result.attempts = [
            AttemptRecord(
                t_wall, result.total_s, result.status_code, result.error_class, result.error, retry_after
            )
        ]
        # The agent may reuse the connection only if what it was sent is framed completely.
        keep = keep_alive and not client_gone and (body_complete or not sent_head)
        return result, keep

    @staticmethod
    def _feed_line(state: StreamAccumulator, line: bytes, now: float) -> None:
        text = line.strip()
        if not text.startswith(b"data:") or state.error_body is not None:
            return
        data = text[5:].strip()
        if data == b"[DONE]":
            state.done = True
            return
        try:
            event = json.loads(data)
        except json.JSONDecodeError:
            state.malformed = True
            return
        if isinstance(event, dict):
            state.feed(event, now)
        else:
            state.malformed = True

    def _write_raw(self, record: CallRecord, request: _Request) -> None:
        if self._raw_writer is None:
            return
        r = record.result
        c = record.context
        line: dict[str, Any] = {
            "t": r.t_start,
            "call_id": record.call_id,
            "run_id": c.run_id,
            "task": c.task,
            "attempt": c.attempt,
            "agent": record.agent,
            "upstream": record.upstream,
            "endpoint": record.endpoint,
            "request": {
                "headers": self.redactor.headers(request.headers),
                "body": r.request_body,
            },
            "response": {
                "status": r.status_code,
                "error_class": r.error_class,
                "body": r.response_body,
            },
        }
        if r.error_class:
            # The stream as received, for diagnosis. A good answer is kept assembled only: its
            # SSE form is ~200 bytes a token and says nothing more.
            line["response"]["raw"] = r.raw_response
        self._raw_writer.put(line)


def _parse_route(path: str) -> tuple[str, str, str | None, str] | None:
    """``/u/<up>/a/<token>[/g/<agent>]/v1<rest>`` -> (up, token, agent, rest)."""
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


def _reason(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"
