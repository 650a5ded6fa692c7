"""The one reader of a streamed chat answer (server-sent events) on the proxy's relay path.

The proxy relays an upstream's SSE bytes to the agent unchanged and, on the side, parses them
into a :class:`StreamAccumulator` (the same accumulator the chat client measures with), so
the trace row says what the agent actually received. Bad input is decided here, once:

- ``data: [DONE]`` ends the answer; anything after it is not parsed.
- A ``data:`` line that is not a JSON object of the chat-chunk shape (bad JSON, a bare value,
  ``choices`` that are not objects, a line cut short when the stream ended) makes the answer ``bad_response``; nothing after it is parsed, because
  whatever the upstream meant by the lost event, the answer cannot be trusted any more.
- An error event (``{"error": ...}`` without choices; llama-server sends one when its KV pool
  runs out mid-answer) gives the answer that event's class (``context_limit`` or
  ``server_error``); nothing after it is parsed, so an answer that then ends without
  ``[DONE]``, or whose transport then breaks, keeps that class.
- An answer that ends with none of these and no ``finish_reason`` is truncated:
  ``bad_response`` (decided by ``finish_result``, as for the client).

The first of these to happen decides (:attr:`SseParser.settled`). This matches the chat
client, which stops reading at the first malformed or error event and ignores what follows
``[DONE]``, so the proxy's row and the agent's own result agree on every such stream.
Comment lines, ``event:`` lines and blank separators are skipped; events are one line each,
as every OpenAI-compatible server sends them.
"""

from __future__ import annotations

import json

from agbench.live.providers.openai_compatible import StreamAccumulator


class SseParser:
    """Splits relayed SSE bytes into lines and feeds their events to ``state``.

    ``feed`` takes body pieces as they arrive (a line may span pieces); ``close`` parses a
    last line that had no newline, once the body has ended normally.
    """

    def __init__(self, state: StreamAccumulator) -> None:
        self.state = state
        self._pending = b""

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
        pending = self._pending + piece
        if b"\n" not in piece:
            self._pending = pending
            return
        *lines, self._pending = pending.split(b"\n")
        for line in lines:
            self.line(line, now)

    def close(self, now: float) -> None:
        pending, self._pending = self._pending, b""
        if pending:
            self.line(pending, now)

    def line(self, line: bytes, now: float) -> None:
        """One SSE line (without its newline)."""
        if self.settled:
            return
        text = line.strip()
        if not text.startswith(b"data:"):
            return
        data = text[5:].strip()
        if data == b"[DONE]":
            self.state.done = True
            return
        try:
            event = json.loads(data)
        except ValueError:  # JSONDecodeError, or bytes that are not UTF-8
            self.state.malformed = True
            return
        if not isinstance(event, dict):
            self.state.malformed = True
            return
        try:
            self.state.feed(event, now)
        except (TypeError, ValueError, KeyError, AttributeError):  # an object of the wrong shape
            self.state.malformed = True
