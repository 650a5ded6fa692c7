"""Restoring a streamed (SSE) answer token-safely: a placeholder split across chunks.

A cloud model streams its answer a token at a time, and a placeholder is several tokens
(``<``, ``EMAIL``, ``_``, ``3``, ``>``), so ``<EMA`` may end one event and ``IL_3>`` start
the next, and an SSE line may itself be cut across network reads. :class:`StreamRestorer`
sits between the upstream's bytes and the agent's socket:

- the bytes are cut into events by live/sse.py's :class:`SseDecoder` (the one reader of SSE,
  so the restorer, the proxy's parser and the chat client cannot disagree on where an event
  ends) and each event is written again by its encoder;
- each event's text fields (``delta.content``, ``delta.reasoning_content`` and each tool
  call's ``function.arguments``, per choice) are restored with the text held back from the
  previous event prepended; a tail that may still become an issued placeholder (``<``
  followed by what could begin one) is held back until it completes or cannot;
- held text is released into the event that ends its choice (``finish_reason``), or in an
  event of its own before ``[DONE]`` / at the end of the stream, so nothing is lost;
- arguments are restored JSON-escaped (they are the inside of a JSON string as they stream);
- an event that is not a chat chunk (bad JSON, no ``choices``) keeps its data and its type
  unchanged, so the proxy's parser and the agent judge a broken stream the same way.

Text is held back only until its placeholder completes (or cannot); an event with no ``<`` in
it while nothing is held keeps its data byte for byte. What is dropped is framing only:
comments (keep-alives), the ``id`` field (nothing downstream reconnects) and CR line ends; an
upstream that writes ``data: ...`` and a blank line, as llama-server and the OpenAI API do,
reaches the agent exactly as it sent it.
"""

from __future__ import annotations

import re
from typing import Any

from agbench.live.privacy.placeholders import MAX_PLACEHOLDER_LEN, PlaceholderMap
from agbench.live.sse import DONE_EVENT, SseDecoder, SseEvent, encode_event

_PARTIAL = re.compile(r"<[A-Z0-9_]*\Z")
FieldKey = tuple[int, str, int]  # (choice index, field, tool-call index or -1)


class StreamRestorer:
    """Rewrites an SSE byte stream, placeholders -> originals, for one answer."""

    def __init__(self, placeholders: PlaceholderMap) -> None:
        self.placeholders = placeholders
        self._decoder = SseDecoder()
        self._held: dict[FieldKey, str] = {}
        self._template: dict[str, Any] = {}  # id/object/model/created of the last event

    # -- bytes ----------------------------------------------------------------------------
    def feed(self, piece: bytes) -> bytes:
        """The restored bytes that can be sent now (possibly empty): the events ``piece`` ends."""
        return b"".join(self._event_out(event) for event in self._decoder.feed(piece))

    def close(self) -> bytes:
        """What is left when the upstream's body ended: an event it left open, held text."""
        out = b"".join(self._event_out(event) for event in self._decoder.close())
        return out + self._flush_event()

    # -- events ---------------------------------------------------------------------------
    def _event_out(self, event: SseEvent) -> bytes:
        data = event.data
        if event.done:
            return self._flush_event() + DONE_EVENT
        if self._held or b"<" in data or b"\\u003c" in data.lower():
            try:
                parsed = event.json()
            except ValueError:
                parsed = None
            if isinstance(parsed, dict) and isinstance(parsed.get("choices"), list):
                for key in ("id", "object", "model", "created"):
                    if key in parsed:
                        self._template[key] = parsed[key]
                for choice in parsed["choices"]:
                    if isinstance(choice, dict):
                        self._choice(choice)
                return _encode(parsed, event.event)
        # No placeholder can start here and none is pending, or not a chat chunk: data unchanged.
        return _encode(data, event.event)

    def _choice(self, choice: dict[str, Any]) -> None:
        index = choice.get("index", 0) if isinstance(choice.get("index"), int) else 0
        delta = choice.get("delta")
        if not isinstance(delta, dict):
            return
        ending = bool(choice.get("finish_reason"))
        for name in ("content", "reasoning_content"):
            if isinstance(delta.get(name), str) or (ending and self._held.get((index, name, -1))):
                delta[name] = self._text((index, name, -1), delta.get(name) or "", ending)
        calls = delta.get("tool_calls")
        if isinstance(calls, list):
            for position, call in enumerate(calls):
                function = call.get("function") if isinstance(call, dict) else None
                if isinstance(function, dict) and isinstance(function.get("arguments"), str):
                    tool = call.get("index", position) if isinstance(call.get("index"), int) else position
                    function["arguments"] = self._text(
                        (index, "arguments", tool), function["arguments"], ending
                    )
        if ending:  # held arguments of this choice's tool calls: into a call of their own
            for key in [k for k in self._held if k[0] == index and k[1] == "arguments" and self._held[k]]:
                held = self._held.pop(key)
                calls = delta.setdefault("tool_calls", [])
                calls.append({"index": key[2], "function": {"arguments": self._restore(key, held)}})

    def _text(self, key: FieldKey, text: str, ending: bool) -> str:
        buffer = self._held.pop(key, "") + text
        if not ending:
            start = buffer.rfind("<")
            tail = buffer[start:] if start >= 0 else ""
            if (
                tail
                and len(tail) <= MAX_PLACEHOLDER_LEN
                and _PARTIAL.match(tail)
                and self.placeholders.could_complete(tail)
            ):
                self._held[key] = tail
                buffer = buffer[:start]
        return self._restore(key, buffer)

    def _restore(self, key: FieldKey, text: str) -> str:
        return self.placeholders.restore(text, json_escaped=key[1] == "arguments")

    def _flush_event(self) -> bytes:
        """Held text of choices that never finished, as one event (empty when none)."""
        held = {k: v for k, v in self._held.items() if v}
        self._held.clear()
        if not held:
            return b""
        choices: dict[int, dict[str, Any]] = {}
        for (index, name, tool), text in sorted(held.items()):
            delta = choices.setdefault(index, {"index": index, "delta": {}, "finish_reason": None})["delta"]
            if name == "arguments":
                delta.setdefault("tool_calls", []).append(
                    {"index": tool, "function": {"arguments": self._restore((index, name, tool), text)}}
                )
            else:
                delta[name] = self._restore((index, name, tool), text)
        return encode_event({**self._template, "choices": list(choices.values())})


def _encode(data: Any, event_type: str) -> bytes:
    """One event again, its type kept (``message``, the default, is not written)."""
    head = b"" if event_type == "message" else b"event: " + event_type.encode() + b"\n"
    return head + encode_event(data)


__all__ = ["StreamRestorer"]
