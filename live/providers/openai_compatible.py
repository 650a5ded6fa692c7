"""An async streaming client for any OpenAI-compatible chat endpoint, measuring as it reads.

One client serves llama.cpp's llama-server, vLLM, Ollama and cloud APIs: they all speak
``POST /v1/chat/completions`` with server-sent events. The client always streams (with
``stream_options.include_usage``) because time to first token and inter-token gaps can only be
measured on a stream, and it reads token usage from whichever place the server puts it
(OpenAI ``prompt_tokens_details``, DeepSeek ``prompt_cache_hit_tokens``, llama.cpp
``timings``). The answer is read and classified by ``chat_stream`` (the one reader, shared
with the recording proxy); retries are ``retrying``'s, and every attempt, retries included, is
kept so the trace shows them all.

Errors are returned, not raised: a ``ChatResult`` with ``error_class`` set (see ``errors``),
because the harness records failed calls exactly like successful ones.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.parse
import uuid
from typing import Any

import httpx

from agbench.attempt import Endpoint
from agbench.live.providers.chat_result import AttemptRecord, ChatResult
from agbench.live.providers.chat_stream import ChatStreamReader, StreamAccumulator, finish_result
from agbench.live.providers.cloud_gate import CloudGate, estimate_tokens
from agbench.live.providers.errors import ErrorClass, classify_http_error, error_text, parse_retry_after
from agbench.live.providers.retrying import RetryPolicy, call_with_retries


def api_base(base_url: str) -> str:
    """The OpenAI API base (what ``/chat/completions`` is appended to) for a server URL.

    A bare origin (``http://127.0.0.1:8080``, as llama-server, vLLM and Ollama are given) gets
    ``/v1``; a URL with a path is taken as the API base already (``.../v1``, a proxy route,
    ``.../v1beta/openai`` and the like).
    """
    base = base_url.rstrip("/")
    base = base.removesuffix("/chat/completions")
    if not urllib.parse.urlsplit(base).path:
        base += "/v1"
    return base


def chat_completions_url(base_url: str) -> str:
    return api_base(base_url) + "/chat/completions"


class ChatClient:
    """Chat with one model at one OpenAI-compatible endpoint.

    ``endpoint`` labels the trace rows ("local" or "cloud"). ``limiter`` is the harness's own
    concurrency limit for this endpoint: time spent waiting on it is the call's ``queue_s``.
    Retries (at most ``max_retries``, backing off from ``backoff_s``) happen only where
    retrying is safe (``retrying``): HTTP 429 and a failed connect.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        endpoint: str = Endpoint.LOCAL,
        api_key: str | None = None,
        timeout_s: float = 600,
        max_retries: int = 2,
        backoff_s: float = 0.5,
        max_backoff_s: float = 30.0,
        limiter: asyncio.Semaphore | None = None,
        raw_limit_chars: int = 200_000,
        gate: CloudGate | None = None,
        jitter: float = 0.25,
    ) -> None:
        self.url = chat_completions_url(base_url)
        self.model = model
        self.endpoint = endpoint
        self._api_key = api_key
        self.timeout_s = timeout_s
        self.retry_policy = RetryPolicy(max(0, max_retries), backoff_s, max_backoff_s, max(0.0, jitter))
        self.limiter = limiter
        self.raw_limit_chars = raw_limit_chars
        self.gate = gate  # the run's cloud budget and rate limits (cloud endpoints only)
        self.retries = 0  # HTTP attempts beyond the first, over every call of this client
        self._client: httpx.AsyncClient | None = None

    def __repr__(self) -> str:  # never show the key
        return f"ChatClient({self.url!r}, {self.model!r}, endpoint={self.endpoint!r})"

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            timeout = httpx.Timeout(self.timeout_s, connect=min(10.0, self.timeout_s))
            limits = httpx.Limits(max_connections=256, max_keepalive_connections=64)
            self._client = httpx.AsyncClient(timeout=timeout, limits=limits, trust_env=False)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def __aenter__(self) -> ChatClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def build_body(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        max_tokens: int | None,
        extra_body: dict[str, Any] | None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if tools:
            body["tools"] = tools
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        if extra_body:
            body.update(extra_body)
        return body

    async def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        max_tokens: int | None = None,
        extra_body: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> ChatResult:
        """Send one chat request (streaming) and measure it; errors come back classified."""
        body = self.build_body(messages, tools, max_tokens, extra_body)
        request_id = uuid.uuid4().hex
        send_headers = {"Accept": "text/event-stream", "X-Request-ID": request_id}
        if self._api_key:
            send_headers["Authorization"] = f"Bearer {self._api_key}"
        if headers:
            send_headers.update(headers)
        queued_at = time.monotonic()
        if self.limiter is not None:
            async with self.limiter:
                queue_s = time.monotonic() - queued_at
                result = await self._with_retries(body, send_headers, max_tokens)
        else:
            queue_s = 0.0
            result = await self._with_retries(body, send_headers, max_tokens)
        result.queue_s = queue_s
        result.request_id = request_id
        return result

    async def _with_retries(
        self, body: dict[str, Any], headers: dict[str, str], max_tokens: int | None
    ) -> ChatResult:
        estimate = estimate_tokens(len(json.dumps(body)), max_tokens) if self.gate is not None else 0

        async def attempt() -> ChatResult:
            slot = await self.gate.acquire(estimate) if self.gate is not None else None
            result = await self._attempt(body, headers, max_tokens)
            if slot is not None:
                CloudGate.settle(slot, result.prompt_tokens + result.completion_tokens or estimate)
            return result

        return await call_with_retries(attempt, self.retry_policy, self._count_retry)

    def _count_retry(self, _: AttemptRecord) -> None:
        self.retries += 1

    async def _attempt(
        self, body: dict[str, Any], headers: dict[str, str], max_tokens: int | None
    ) -> ChatResult:
        t_wall = time.time()
        t0 = time.monotonic()
        result = ChatResult(endpoint=self.endpoint, model=self.model, t_start=t_wall, request_body=body)
        record = AttemptRecord(t_start=t_wall)
        state = StreamAccumulator(t0)
        raw: list[bytes] = []
        try:
            async with asyncio.timeout(self.timeout_s):
                client = self._http()
                request = client.build_request("POST", self.url, json=body, headers=headers)
                response = await send_retrying_stale(client, request)
                try:
                    result.status_code = response.status_code
                    if response.status_code != 200:
                        await self._read_error(response, result, record, raw)
                    elif "text/event-stream" not in response.headers.get("content-type", "text/event-stream"):
                        content = await response.aread()
                        raw.append(content)
                        state.feed(json.loads(content), time.monotonic())
                        state.done = True
                    else:
                        await self._read_stream(response, state, raw)
                finally:
                    await response.aclose()
        except TimeoutError:
            result.error_class, result.error = (
                ErrorClass.TIMEOUT.value,
                f"no complete answer in {self.timeout_s:g} s",
            )
        except httpx.TimeoutException as exc:
            result.error_class, result.error = ErrorClass.TIMEOUT.value, f"{type(exc).__name__}: {exc}"
        except httpx.ConnectError as exc:
            result.error_class = ErrorClass.CONNECTION.value
            result.error = f"could not connect: {exc}"
            record.sent = False
        except (httpx.TransportError, httpx.StreamError) as exc:
            result.error_class = ErrorClass.CONNECTION.value
            result.error = f"{type(exc).__name__} mid-response: {exc}"
        except (ValueError, TypeError, KeyError, AttributeError) as exc:  # json/shape errors
            result.error_class = ErrorClass.BAD_RESPONSE.value
            result.error = f"malformed response: {exc}"[:500]
        end = time.monotonic()
        finish_result(result, state, t0, end, max_tokens)
        result.raw_response = b"".join(raw).decode("utf-8", "replace")[: self.raw_limit_chars]
        record.total_s = result.total_s
        record.status_code = result.status_code
        record.error_class = result.error_class
        record.error = result.error
        result.attempts = [record]
        return result

    async def _read_error(
        self, response: httpx.Response, result: ChatResult, record: AttemptRecord, raw: list[bytes]
    ) -> None:
        """A non-200 answer: its error class, message and Retry-After."""
        content = await response.aread()
        raw.append(content)
        text = content.decode("utf-8", errors="replace")
        try:
            err_body: Any = json.loads(text)
        except json.JSONDecodeError:
            err_body = text
        result.error_class = classify_http_error(response.status_code, err_body).value
        result.error = error_text(err_body)[:500] or f"HTTP {response.status_code}"
        record.retry_after_s = parse_retry_after(response.headers.get("retry-after"))
        if isinstance(err_body, dict):
            result.response_body = err_body

    async def _read_stream(
        self, response: httpx.Response, state: StreamAccumulator, raw: list[bytes]
    ) -> None:
        """An SSE answer into ``state`` (``chat_stream`` decides how it ended); ``raw`` keeps
        the bytes up to a limit. After ``[DONE]`` the body is read on to its end (it follows at
        once), so the connection goes back to the pool instead of being closed; after an error
        event or a malformed one nothing more is read."""
        reader = ChatStreamReader(state)
        kept = 0
        async for piece in response.aiter_bytes():
            if kept < self.raw_limit_chars:
                raw.append(piece)
                kept += len(piece)
            reader.feed(piece, time.monotonic())
            if reader.failed:
                return
        reader.close(time.monotonic())


async def send_retrying_stale(client: httpx.AsyncClient, request: httpx.Request) -> httpx.Response:
    """Send (streaming) and, if a kept-alive connection proves to have been closed by the server
    before any answer came back, send once more on a fresh connection.

    The request never reached the server in that case, so this is not a retry of the model
    call and is not recorded as an attempt. It matters because llama-server closes the
    connection after every streamed answer: reusing the pooled socket races with that close.
    """
    try:
        return await client.send(request, stream=True)
    except httpx.RemoteProtocolError as exc:
        if "without sending a response" not in str(exc):
            raise
        return await client.send(request, stream=True)
