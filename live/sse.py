"""Server-sent events: the one decoder and the one encoder of an SSE byte stream.

Every OpenAI-compatible server streams a chat answer as SSE (``text/event-stream``), and four
parts of live/ meet that format: the chat client and the recording proxy read it, the offline
providers (``--provider mock``, the scripted and fault-injecting test servers) write it. They
all go through this module, so the client's and the proxy's reading of one stream cannot
drift apart, and what the providers send is what the readers were written for.

:class:`SseDecoder` takes the body's bytes as they arrive, in pieces cut anywhere, and gives
back whole events, following the WHATWG event-stream rules:

- a line ends in CRLF, LF or CR (a CR that ends one piece and an LF that starts the next are
  one line end); a UTF-8 byte-order mark before the first line is dropped;
- a line starting with ``:`` is a comment (llama-server and proxies send keep-alives so);
- ``name: value`` sets a field (one space after the colon is dropped); ``data`` lines of one
  event join with ``\\n``, so an event may span lines; ``event`` names it, ``id`` sets the
  last event id; ``retry`` and unknown fields are ignored (nothing here reconnects);
- a blank line ends the event; one with no ``data`` line is not an event.

One departure from the rules, on purpose: when the body ends (:meth:`SseDecoder.close`) an
event not yet ended by a blank line is still handed over instead of dropped, because a chat
answer cut short must be judged as cut (its half a JSON object is malformed), not lose its
last event silently. Data stay bytes: a reader that parses them as JSON decodes them strictly,
so bytes that are not UTF-8 make a malformed event rather than being replaced unnoticed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

_BOM = b"\xef\xbb\xbf"
#: The event that ends an OpenAI-compatible stream.
DONE_DATA = b"[DONE]"


@dataclass(frozen=True, slots=True)
class SseEvent:
    """One dispatched event: its data lines joined by ``\\n``, its type and the last event id."""

    data: bytes
    event: str = "message"
    id: str = ""

    @property
    def done(self) -> bool:
        """Whether this is the ``data: [DONE]`` that ends an OpenAI-compatible stream."""
        return self.data.strip() == DONE_DATA

    def json(self) -> Any:
        """The data parsed as JSON (strict UTF-8); raises ValueError when they are not JSON."""
        return json.loads(self.data)


class SseDecoder:
    """Bytes in (pieces cut anywhere), events out; one decoder reads one body."""

    def __init__(self) -> None:
        self._pending = b""  # the start of a line whose end has not arrived
        self._data: list[bytes] = []
        self._event = ""
        self._last_id = ""
        self._skip_lf = False  # the last piece ended in CR: a leading LF is its other half
        self._started = False  # past the place a byte-order mark may stand

    def feed(self, piece: bytes) -> list[SseEvent]:
        """The events that ``piece`` completes (often none, often one)."""
        if self._skip_lf and piece:
            self._skip_lf = False
            if piece[:1] == b"\n":
                piece = piece[1:]
        data = self._pending + piece
        if not self._started:
            if len(data) < len(_BOM) and _BOM.startswith(data):
                self._pending = data  # could still be a byte-order mark
                return []
            self._started = True
            data = data.removeprefix(_BOM)
        if b"\r" in data:
            self._skip_lf = data.endswith(b"\r")
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        if b"\n" not in data:
            self._pending = data
            return []
        *lines, self._pending = data.split(b"\n")
        events: list[SseEvent] = []
        for line in lines:
            self._line(line, events)
        return events

    def close(self) -> list[SseEvent]:
        """The body ended: its last line, even without a line end, and an event it left open."""
        pending, self._pending = self._pending, b""
        events: list[SseEvent] = []
        if pending:
            self._line(pending, events)
        self._dispatch(events)
        return events

    def _line(self, line: bytes, events: list[SseEvent]) -> None:
        if not line:
            self._dispatch(events)
            return
        if line[:1] == b":":
            return  # a comment
        name, colon, value = line.partition(b":")
        if colon and value[:1] == b" ":
            value = value[1:]
        if name == b"data":
            self._data.append(value)
        elif name == b"event":
            self._event = value.decode("utf-8", "replace")
        elif name == b"id" and b"\0" not in value:
            self._last_id = value.decode("utf-8", "replace")

    def _dispatch(self, events: list[SseEvent]) -> None:
        if self._data:
            events.append(SseEvent(b"\n".join(self._data), self._event or "message", self._last_id))
        self._data = []
        self._event = ""


def encode_event(data: Any) -> bytes:
    """One event as a server sends it: ``data: ...`` then a blank line.

    A str or bytes is sent as it is (a line break in it starts another ``data`` line, which a
    decoder joins back); anything else is sent as JSON, non-ASCII text as UTF-8 as
    llama-server sends it.
    """
    if isinstance(data, str):
        raw = data.encode()
    elif isinstance(data, bytes):
        raw = data
    else:
        raw = json.dumps(data, ensure_ascii=False).encode()
    lines = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
    return b"".join(b"data: " + line + b"\n" for line in lines) + b"\n"


#: ``data: [DONE]``, the event that ends an OpenAI-compatible stream.
DONE_EVENT = encode_event(DONE_DATA)


def encode_stream(events: Iterable[Any], *, done: bool = True) -> bytes:
    """Events (each as :func:`encode_event` takes it), then ``data: [DONE]`` unless ``done`` is False."""
    return b"".join(encode_event(e) for e in events) + (DONE_EVENT if done else b"")


__all__ = ["DONE_DATA", "DONE_EVENT", "SseDecoder", "SseEvent", "encode_event", "encode_stream"]
