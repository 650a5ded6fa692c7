"""Measuring one streamed chat answer: the event reader, the accumulator, and how it ended.

The chat client and the recording proxy both read an answer through :class:`ChatStreamReader`
(SSE bytes in, via the one decoder ``live/sse.py``) into a :class:`StreamAccumulator`, and
classify it with :func:`finish_result`, so the client's result and the proxy's trace row
agree on every stream, bad ones included. Bad input is decided here, once:

- ``data: [DONE]`` ends the answer; anything after it is not parsed.
- An event whose data are not a JSON object of the chat-chunk shape (bad JSON, a bare value,
  ``choices`` that are not objects, bytes that are not UTF-8, an event cut short when the
  stream ended) makes the answer ``bad_response``; nothing after it is parsed, because
  whatever the upstream meant by the lost event, the answer cannot be trusted any more.
- An error event (``{"error": ...}`` without choices; llama-server sends one when its KV pool
  runs out mid-answer) gives the answer that event's class (``context_limit`` or
  ``server_error``); nothing after it is parsed, so an answer that then ends without
  ``[DONE]``, or whose transport then breaks, keeps that class.
- An answer that ends with none of these and no ``finish_reason`` is truncated:
  ``bad_response`` (``finish_result``).

The first of these to happen decides (:attr:`ChatStreamReader.settled`). Comments, event
names and blank separators are the decoder's business and never reach the accumulator.
"""

from __future__ import annotations

import json
from typing import Any

from agbench.live.providers.chat_result import ChatResult, GapSummary
from agbench.live.providers.errors import ErrorClass, classify_stream_error, error_text
from agbench.live.sse import SseDecoder, SseEvent


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
        self.malformed = False  # an event that was not a chat chunk (the proxy keeps relaying)

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


class ChatStreamReader:
    """Decodes a streamed answer's SSE bytes and feeds its events to ``state``.

    ``feed`` takes body pieces as they arrive (cut anywhere); ``close`` hands over what the
    body left open once it has ended normally. After :attr:`settled` nothing more is parsed.
    """

    def __init__(self, state: StreamAccumulator) -> None:
        self.state = state
        self._decoder = SseDecoder()

    @property
    def settled(self) -> bool:
        """Whether the answer's ending is decided: ``[DONE]``, an error event or malformed data."""
        state = self.state
        return state.done or state.malformed or state.error_body is not None

    @property
    def failed(self) -> bool:
        """Whether the stream itself said the answer failed (an error event or malformed data)."""
        return self.state.malformed or self.state.error_body is not None

    def feed(self, piece: bytes, now: float) -> None:
        for event in self._decoder.feed(piece):
            self.event(event, now)

    def close(self, now: float) -> None:
        for event in self._decoder.close():
            self.event(event, now)

    def event(self, event: SseEvent, now: float) -> None:
        """One decoded event, unless the answer is settled already."""
        if self.settled:
            return
        if event.done:
            self.state.done = True
            return
        try:
            chunk = event.json()
        except ValueError:  # JSONDecodeError, or bytes that are not UTF-8
            self.state.malformed = True
            return
        if not isinstance(chunk, dict):
            self.state.malformed = True
            return
        try:
            self.state.feed(chunk, now)
        except (TypeError, ValueError, KeyError, AttributeError):  # an object of the wrong shape
            self.state.malformed = True


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


__all__ = ["ChatStreamReader", "StreamAccumulator", "finish_result", "usage_tokens"]
