"""JSON tool calls embedded anywhere in assistant content: the last-resort fallback.

Small local models asked for tools often just write ``{"name": ..., "arguments": {...}}`` (this
is what SmolLM2 and Qwen2.5-Coder do under llama-server's stock templates, see DESIGN.md).
Also covers Llama 3 JSON (``<|python_tag|>{"name": ..., "parameters": ...}``, ``;``-separated),
Granite-20B-FC (``<function_call> {...}``), InternLM2 (``<|action_start|><|plugin|>{...}``) and
GigaChat 3 (``function call<|role_sep|>{...}``), and Python-dict spellings
(``{'name': 'x', 'arguments': {...}}``). An object counts only if it has a name key and
an arguments key (or nothing else), so ordinary JSON data in an answer is left alone.
"""

from __future__ import annotations

import ast
import re
from typing import Any, Literal

from agbench.live.parsers.call import ParsedToolCall, call_from_object
from agbench.live.parsers.format import remove_spans
from agbench.live.parsers.values import dumps, json_values_at

#: Markers models put before a JSON call; the span removed from the content includes them.
OPENERS = re.compile(
    r"(?:\[TOOL_CALLS\]|<tool_call>|<\|tool_call\|>|<tool_calls>|<\|START_ACTION\|>|<\|tools_prefix\|>"
    r"|<\|python_tag\|>|<function_call>|<\|action_start\|>\s*<\|plugin\|>|function call<\|role_sep\|>"
    r"|```(?:json)?)\s*$"
)
CLOSERS = re.compile(
    r"^\s*(?:</tool_call>|</tool_calls>|<\|END_ACTION\|>|<\|tools_suffix\|>|<\|action_end\|>"
    r"|<\|eom_id\|>|<\|eot_id\|>|```|;)"
)
_SINGLE_KEY_MARKER = re.compile(r"<\|tools_prefix\|>\s*$")


def _calls_in(value: Any, single_key: bool, require_arguments: bool) -> list[ParsedToolCall]:
    items = value if isinstance(value, list) else [value]
    if not items:
        return []
    calls = [
        call_from_object(item, allow_single_key=single_key, require_arguments=require_arguments)
        for item in items
    ]
    if any(c is None for c in calls):
        return []  # a list that is not all calls is data
    return [c for c in calls if c is not None]


def find_json_calls(
    text: str, *, objects: Literal["anywhere", "marked"] = "anywhere"
) -> tuple[list[ParsedToolCall], list[tuple[int, int]]]:
    """Calls written as JSON in ``text``, and the spans (markers included) they occupy.

    ``objects``: where a lone object (not an array) counts: ``"anywhere"``, or ``"marked"``
    (only after a marker such as ``[TOOL_CALLS]`` or a code fence, or when it is all the text).
    """
    calls: list[ParsedToolCall] = []
    spans: list[tuple[int, int]] = []
    whole = text.strip()
    for start, end, value in json_values_at(text):
        before = text[:start]
        marker = OPENERS.search(before[-64:])
        chained = bool(spans) and text[spans[-1][1] : start].strip() in ("", ";", ",")
        lone = isinstance(value, dict) and marker is None and not chained and text[start:end].strip() != whole
        if objects == "marked" and lone:
            continue
        found = _calls_in(
            value, single_key=bool(_SINGLE_KEY_MARKER.search(before[-64:])), require_arguments=marker is None
        )
        if not found:
            continue
        span_start = start - len(marker.group(0)) if marker else start
        closer = CLOSERS.match(text, end)
        calls.extend(found)
        spans.append((span_start, closer.end() if closer else end))
    return calls, spans


_PY_DICT_START = re.compile(r"\{\s*'(?:name|tool_name|function)'\s*:")
_MAX_CANDIDATES = 8
_MAX_ENDS = 16


def find_python_dict_calls(text: str) -> tuple[list[ParsedToolCall], list[tuple[int, int]]]:
    """Calls written as Python dicts (``{'name': 'x', 'arguments': {...}}``), as small models do.

    Read with ``ast.literal_eval`` (never evaluated), trying a bounded number of closing braces.
    """
    calls: list[ParsedToolCall] = []
    spans: list[tuple[int, int]] = []
    closes = [m.end() for m in re.finditer(r"\}", text)]
    for start in list(_PY_DICT_START.finditer(text))[:_MAX_CANDIDATES]:
        if spans and start.start() < spans[-1][1]:
            continue
        ends = [end for end in closes if end > start.start()][:_MAX_ENDS]
        for end in ends:
            try:
                value = ast.literal_eval(text[start.start() : end])
            except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
                continue
            call = call_from_object(value, require_arguments=True)
            if call is not None:
                calls.append(call)
                spans.append((start.start(), end))
            break
    return calls, spans


def parse_json_in_content(text: str) -> tuple[list[ParsedToolCall], str]:
    calls, spans = find_json_calls(text, objects="anywhere")
    if not calls:
        calls, spans = find_python_dict_calls(text)
    return calls, remove_spans(text, spans)


def render_json_in_content(calls: list[ParsedToolCall]) -> str:
    objects = [{"name": call.name, "arguments": call.arguments} for call in calls]
    rendered: str = dumps(objects[0] if len(objects) == 1 else objects)
    return rendered
