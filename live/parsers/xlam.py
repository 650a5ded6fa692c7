"""JSON-array tool calls (vLLM ``xlam``; also Mistral, Jamba, Granite 3, Hunyuan, Command A, Apertus).

::

    [{"name": "get_weather", "arguments": {"city": "Paris"}}]

found bare, in a code fence, after ``[TOOL_CALLS]``, inside ``<tool_call>``/``<tool_calls>``/
``<|tool_call|>``/``<|START_ACTION|>``, or after ``</think>``. Mistral's newer
``[TOOL_CALLS]name[ARGS]{...}`` and Apertus' ``<|tools_prefix|>[{"name": {args}}]`` are read too.
A lone object counts only after such a marker or when it is the whole reply.
"""

from __future__ import annotations

import json
import re

from agbench.live.parsers.call import ParsedToolCall, decode_arguments
from agbench.live.parsers.format import remove_spans
from agbench.live.parsers.json_content import find_json_calls
from agbench.live.parsers.values import dumps

_MISTRAL_NAMED = re.compile(
    r"\[TOOL_CALLS\]\s*([\w.\-]+)\s*(?:\[CALL_ID\]\s*[\w\-]*\s*)?(?:\[ARGS\])?\s*(?=\{)"
)
_DECODER = json.JSONDecoder()


def _parse_mistral_named(text: str) -> tuple[list[ParsedToolCall], list[tuple[int, int]]]:
    calls: list[ParsedToolCall] = []
    spans: list[tuple[int, int]] = []
    for match in _MISTRAL_NAMED.finditer(text):
        try:
            value, end = _DECODER.raw_decode(text, match.end())
        except (ValueError, RecursionError):
            continue
        arguments, malformed = decode_arguments(value)
        calls.append(ParsedToolCall(match.group(1), arguments, None, malformed))
        spans.append((match.start(), end))
    return calls, spans


def parse_xlam(text: str) -> tuple[list[ParsedToolCall], str]:
    calls, spans = _parse_mistral_named(text)
    if not calls:
        calls, spans = find_json_calls(text, objects="marked")
    return calls, remove_spans(text, spans)


def render_xlam(calls: list[ParsedToolCall]) -> str:
    rendered: str = dumps([{"name": call.name, "arguments": call.arguments} for call in calls])
    return rendered
