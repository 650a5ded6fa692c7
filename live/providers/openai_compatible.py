"""An async streaming client for any OpenAI-compatible chat endpoint, measuring as it reads.

One client serves llama.cpp's llama-server, vLLM, Ollama and cloud APIs: they all speak
``POST /v1/chat/completions`` with server-sent events. The client always streams (with
``stream_options.include_usage``) because time to first token and inter-token gaps can only be
measured on a stream, and it reads token usage from whichever place the server puts it
(OpenAI ``prompt_tokens_details``, DeepSeek ``prompt_cache_hit_tokens``, llama.cpp
``timings``). Every attempt, retries included, is kept so the trace shows them all.

Errors are returned, not raised: a ``ChatResult`` with ``error_class`` set (see ``errors``),
because the harness records failed calls exactly like successful ones.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
import urllib.parse
import uuid
from typing import Any

import httpx

from agbench.attempt import Endpoint
from agbench.live.providers.chat_result import AttemptRecord, ChatResult, GapSummary
from agbench.live.providers.cloud_gate import CloudGate, estimate_tokens
from agbench.live.providers.errors import (
    ErrorClass,
    classify_http_error,
    classify_stream_error,
    error_text,
    parse_retry_after,
)


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


def usage_tokens(usage: dict[str, Any] | None, timings: dict[str, Any] | None) -> tuple[int, int, int]:
    """(prompt, cached, completion) tokens from OpenAI, DeepSeek or llama.cpp fields."""
    usage = usage or {}
    timings = timings or {}
    prompt = int(usage.get("prompt_tokens") or 0)
    completion = int(usage.get("completion_tokens") or 0)
    cached: int | None = None
    details = usage.get("prompt_tokens_details")
    if isinstance(details, dict) and details.get("cached_tokens") is not None:
        cached = int(details["cached_tokens"])
    if cached is None and usage.get("prompt_cache_hit_tokens") is not None:
        cached = int(usage["prompt_cache_hit_tokens"])
    if cached is None and timings.get("cache_n") is not None:
        cached = int(timings["cache_n"])
    if not prompt and timings:
        prompt = int(timings.get("prompt_n") or 0) + int(timings.get("cache_n") or 0)
    if not completion and timings:
        completion = int(timings.get("predicted_n") or 0)
    return prompt, cached or 0, completion


class StreamAccumulator:
    """Accumulates one streamed (or whole) chat answer from its events, timing each token.

    Shared by the client and the recording proxy so both measure the same way.
    """

    def __init__(self, t0: float) -> None:
        self.t0 = t0
        self.content: list[str] = []
        self.reasoning: list[str] = []
        self.tool_calls: dict[int, dict[str, Any]] = {}
        self.finish_reason = ""
        self.usage: dict[str, Any] | None = None
        self.timings: dict[str, Any] | None = None
        self.response_id = ""
        self.model = ""
        self.slot_id: int | None = None
        self.first_token_at: float | None = None
        self.last_token_at: float | None = None
        self.gaps: list[float] = []
        self.done = False
        self.error_body: Any = None
        self.malformed = False  # an event that was not a JSON object (the proxy keeps relaying)

    def token_seen(self, now: float) -> None:
        if self.first_token_at is None:
            self.first_token_at = now
        elif self.last_token_at is not None:
            self.gaps.append(now - self.last_token_at)
        self.last_token_at = now

    def feed(self, event: dict[str, Any], now: float) -> None:
        if "error" in event and not event.get("choices"):
            self.error_body = event
            return
        self.response_id = self.response_id or str(event.get("id") or "")
        self.model = self.model or str(event.get("model") or "")
        if event.get("usage"):
            self.usage = event["usage"]
        if event.get("timings"):
            self.timings = event["timings"]
        if event.get("id_slot") is not None:
            self.slot_id = int(event["id_slot"])
        for choice in event.get("choices") or []:
            if self._feed_delta(choice.get("delta") or choice.get("message") or {}):
                self.token_seen(now)
            if choice.get("finish_reason"):
                self.finish_reason = str(choice["finish_reason"])

    def _feed_delta(self, delta: dict[str, Any]) -> bool:
        """Add one delta's text and tool-call pieces; True when it carried any token."""
        got_token = False
        if delta.get("content"):
            self.content.append(delta["content"])
            got_token = True
        if delta.get("reasoning_content"):
            self.reasoning.append(delta["reasoning_content"])
            got_token = True
        for tc in delta.get("tool_calls") or []:
            got_token = True
            self._feed_tool_call(tc)
        return got_token

    def _feed_tool_call(self, tc: dict[str, Any]) -> None:
        """Streamed tool calls arrive in pieces keyed by index: name and arguments concatenate."""
        index = int(tc.get("index", len(self.tool_calls)))
        slot = self.tool_calls.setdefault(
            index, {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
        )
        if tc.get("id"):
            slot["id"] = tc["id"]
        if tc.get("type"):
            slot["type"] = tc["type"]
        fn = tc.get("function") or {}
        if fn.get("name"):
            slot["function"]["name"] += fn["name"]
        args = fn.get("arguments")
        if isinstance(args, str):
            slot["function"]["arguments"] += args
        elif args is not None:
            slot["function"]["arguments"] += json.dumps(args)

    def assembled(self) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self.content)}
        if self.reasoning:
            message["reasoning_content"] = "".join(self.reasoning)
        if self.tool_calls:
            message["tool_calls"] = [self.tool_calls[i] for i in sorted(self.tool_calls)]
        body: dict[str, Any] = {
            "id": self.response_id,
            "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": self.finish_reason or None}],
        }
        if self.usage:
            body["usage"] = self.usage
        if self.timings:
            body["timings"] = self.timings
        return body


class ChatClient:
    """Chat with one model at one OpenAI-compatible endpoint.

    ``endpoint`` labels the trace rows ("local" or "cloud"). ``limiter`` is the harness's own
    concurrency limit for this endpoint: time spent waiting on it is the call's ``queue_s``.
    Retries (at most ``max_retries``) happen only where retrying is safe: HTTP 429 (after
    Retry-After, capped) and a failed connect (the request never left this machine). A timeout,
    a 5xx or a broken stream is not retried: the model may have done the work, and the harness
    decides what a failed turn means.
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
        self.max_retries = max(0, max_retries)
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.limiter = limiter
        self.raw_limit_chars = raw_limit_chars
        self.gate = gate  # the run's cloud budget and rate limits (cloud endpoints only)
        self.jitter = max(0.0, jitter)  # each backoff is stretched by up to this fraction, at random
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
        attempts: list[AttemptRecord] = []
        estimate = estimate_tokens(len(json.dumps(body)), max_tokens) if self.gate is not None else 0
        while True:
            slot = await self.gate.acquire(estimate) if self.gate is not None else None
            result = await self._attempt(body, headers, max_tokens)
            if slot is not None:
                CloudGate.settle(slot, result.prompt_tokens + result.completion_tokens or estimate)
            record = result.attempts[0]
            attempts.append(record)
            retryable = record.error_class == ErrorClass.RATE_LIMITED or not record.sent
            if not retryable or len(attempts) > self.max_retries:
                break
            self.retries += 1
            record.backoff_s = backoff_delay(
                len(attempts), self.backoff_s, self.max_backoff_s, record.retry_after_s, self.jitter
            )
            await asyncio.sleep(record.backoff_s)
        result.attempts = attempts
        result.t_start = attempts[0].t_start
        return result

    async def _attempt(
        self, body: dict[str, Any], headers: dict[str, str], max_tokens: int | None
    ) -> ChatResult:
        t_wall = time.time()
        t0 = time.monotonic()
        result = ChatResult(endpoint=self.endpoint, model=self.model, t_start=t_wall, request_body=body)
        record = AttemptRecord(t_start=t_wall)
        state = StreamAccumulator(t0)
        raw: list[str] = []
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
                        text = (await response.aread()).decode("utf-8", errors="replace")
                        raw.append(text)
                        state.feed(json.loads(text), time.monotonic())
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
        result.raw_response = "".join(raw)[: self.raw_limit_chars]
        record.total_s = result.total_s
        record.status_code = result.status_code
        record.error_class = result.error_class
        record.error = result.error
        result.attempts = [record]
        return result

    async def _read_error(
        self, response: httpx.Response, result: ChatResult, record: AttemptRecord, raw: list[str]
    ) -> None:
        """A non-200 answer: its error class, message and Retry-After."""
        text = (await response.aread()).decode("utf-8", errors="replace")
        raw.append(text)
        try:
            err_body: Any = json.loads(text)
        except json.JSONDecodeError:
            err_body = text
        result.error_class = classify_http_error(response.status_code, err_body).value
        result.error = error_text(err_body)[:500] or f"HTTP {response.status_code}"
        record.retry_after_s = parse_retry_after(response.headers.get("retry-after"))
        if isinstance(err_body, dict):
            result.response_body = err_body

    async def _read_stream(self, response: httpx.Response, state: StreamAccumulator, raw: list[str]) -> None:
        """An SSE answer, event by event, into ``state``; ``raw`` keeps the text up to a limit."""
        raw_len = 0
        async for line in response.aiter_lines():
            now = time.monotonic()
            if raw_len < self.raw_limit_chars:
                raw.append(line + "\n")
                raw_len += len(line) + 1
            if not line.startswith("data:"):
                continue  # comments, event names, blank separators
            payload = line[5:].strip()
            if payload == "[DONE]":
                # Read on to the end of the body (it follows at once) so the connection goes
                # back to the pool instead of being closed.
                state.done = True
                continue
            if state.done:
                continue
            event = json.loads(payload)
            if not isinstance(event, dict):
                raise ValueError(f"SSE event is not an object: {payload[:80]}")
            state.feed(event, now)
            if state.error_body is not None:
                break


def backoff_delay(
    failures: int, base_s: float, cap_s: float, retry_after_s: float | None, jitter: float
) -> float:
    """Seconds to wait after the ``failures``-th failed attempt: exponential backoff stretched
    by a random fraction up to ``jitter`` (so agents that failed together do not all come back
    together), capped, and never shorter than the server's Retry-After."""
    wait = min(base_s * 2.0 ** (failures - 1), cap_s) * (1.0 + random.uniform(0.0, jitter))
    if retry_after_s is not None:
        wait = max(wait, retry_after_s)
    return min(wait, max(cap_s, retry_after_s or 0.0))


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


def _float_or_none(value: Any) -> float | None:
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def finish_result(
    result: ChatResult, state: StreamAccumulator, t0: float, end: float, max_tokens: int | None
) -> None:
    """Fill ``result`` from what ``state`` saw, and classify how the answer ended."""
    result.total_s = end - t0
    result.content = "".join(state.content)
    result.reasoning_content = "".join(state.reasoning)
    result.tool_calls = [state.tool_calls[i] for i in sorted(state.tool_calls)]
    result.finish_reason = state.finish_reason
    result.response_id = state.response_id
    result.slot_id = state.slot_id
    if result.status_code == 200 or state.usage or state.timings:
        result.response_body = state.assembled()
    result.prompt_tokens, result.cached_tokens, result.completion_tokens = usage_tokens(
        state.usage, state.timings
    )
    counted = result.completion_tokens > 0  # the provider said how many tokens it generated
    if not counted and state.first_token_at is not None:
        result.completion_tokens = len(state.gaps) + 1  # chunks ≈ tokens when no usage came
    if state.timings:
        result.prompt_ms = _float_or_none(state.timings.get("prompt_ms"))
        result.predicted_ms = _float_or_none(state.timings.get("predicted_ms"))
    if state.first_token_at is not None:
        result.ttft_s = state.first_token_at - t0
        decode_s = (state.last_token_at or end) - state.first_token_at
        # Tokens/s only from the provider's own count: chunk counts are no token counts (n/a).
        if counted and result.completion_tokens > 1 and decode_s > 0:
            result.output_tok_s = (result.completion_tokens - 1) / decode_s
    result.gaps = GapSummary.of(state.gaps)
    if result.error_class:
        return
    if state.error_body is not None:
        result.error_class = classify_stream_error(state.error_body).value
        result.error = error_text(state.error_body)[:500]
    elif state.malformed:
        result.error_class = ErrorClass.BAD_RESPONSE.value
        result.error = "malformed SSE event in the stream"
    elif not state.finish_reason:
        # The stream ended cleanly but never said why it stopped: truncated.
        result.error_class = ErrorClass.BAD_RESPONSE.value
        result.error = "stream ended without a finish_reason" + ("" if state.done else " or [DONE]")
    elif state.finish_reason == "length" and (max_tokens is None or result.completion_tokens < max_tokens):
        # Stopped for length without reaching our max_tokens: the slot's context is full.
        result.error_class = ErrorClass.CONTEXT_LIMIT.value
        result.error = "finish_reason length at the context edge"
