"""JSON objects inside tags: Hermes / Qwen2.5 / Qwen3.5 / Granite 4 and LongCat.

::

    <tool_call>
    {"name": "get_weather", "arguments": {"city": "Paris"}}
    </tool_call>

LongCat writes the same inside ``<longcat_tool_call>…</longcat_tool_call>``. The JSON is
decoded from the tag onwards rather than cut at the closing tag, so a closing tag inside a
string argument (code being written to a file) does not break it, and a closing tag lost to a
stop sequence does not either.
"""

from __future__ import annotations

import json
import re

from agbench.live.parsers.call import ParsedToolCall, call_from_object
from agbench.live.parsers.format import remove_spans
from agbench.live.parsers.values import dumps

_DECODER = json.JSONDecoder()
_FENCE_OPEN = re.compile(r"\s*(?:```(?:json)?\s*)?")
_FENCE_CLOSE = re.compile(r"\s*(?:```\s*)?")


def parse_between(text: str, open_tag: str, close_tag: str) -> tuple[list[ParsedToolCall], str]:
    """Calls from JSON objects (or arrays of them) that follow ``open_tag``."""
    calls: list[ParsedToolCall] = []
    spans: list[tuple[int, int]] = []
    pos = 0
    while True:
        start = text.find(open_tag, pos)
        if start < 0:
            break
        json_start = _FENCE_OPEN.match(text, start + len(open_tag))
        at = json_start.end() if json_start else start + len(open_tag)
        pos = start + len(open_tag)
        try:
            value, end = _DECODER.raw_decode(text, at)
        except (ValueError, RecursionError):
            continue
        items = value if isinstance(value, list) else [value]
        found = [c for c in (call_from_object(item) for item in items) if c is not None]
        if not found:
            continue
        tail = _FENCE_CLOSE.match(text, end)
        end = tail.end() if tail else end
        if text.startswith(close_tag, end):
            end += len(close_tag)
        calls.extend(found)
        spans.append((start, end))
        pos = end
    return calls, remove_spans(text, spans)


def _render(calls: list[ParsedToolCall], open_tag: str, close_tag: str) -> str:
    return "\n".join(
        f"{open_tag}\n{dumps({'name': call.name, 'arguments': call.arguments})}\n{close_tag}"
        for call in calls
    )


def parse_hermes(text: str) -> tuple[list[ParsedToolCall], str]:
    return parse_between(text, "<tool_call>", "</tool_call>")


def render_hermes(calls: list[ParsedToolCall]) -> str:
    return _render(calls, "<tool_call>", "</tool_call>")


def parse_longcat(text: str) -> tuple[list[ParsedToolCall], str]:
    return parse_between(text, "<longcat_tool_call>", "</longcat_tool_call>")


def render_longcat(calls: list[ParsedToolCall]) -> str:
    return _render(calls, "<longcat_tool_call>", "</longcat_tool_call>")
