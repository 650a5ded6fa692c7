"""Special-token sections with JSON arguments: Kimi K2 and, by alias, DeepSeek V3 / V3.1.

Kimi K2 (vLLM ``kimi_k2``)::

    <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0
    <|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>

DeepSeek V3 (``deepseek_v3``) and V3.1 (``deepseek_v31``) use the same idea with their own
full-width tokens, so the aliases normalise here rather than to a parser of their own::

    <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather
    ```json
    {"city": "Paris"}
    ```<｜tool▁call▁end｜><｜tool▁calls▁end｜>                                  (V3)
    <｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜>  (V3.1)
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agbench.live.parsers.call import ParsedToolCall, decode_arguments
from agbench.live.parsers.format import remove_spans
from agbench.live.parsers.values import dumps

_KIMI_SECTION = re.compile(
    r"<\|tool_calls_section_begin\|>(.*?)(?:<\|tool_calls_section_end\|>|$)", re.DOTALL
)
_KIMI_CALL = re.compile(
    r"<\|tool_call_begin\|>\s*([^<]+?)\s*<\|tool_call_argument_begin\|>(.*?)(?:<\|tool_call_end\|>|(?=<\|tool_call_begin\|>)|$)",
    re.DOTALL,
)
_DS_SECTION = re.compile(r"<｜tool▁calls▁begin｜>(.*?)(?:<｜tool▁calls▁end｜>|$)", re.DOTALL)
_DS_CALL = re.compile(
    r"<｜tool▁call▁begin｜>(.*?)<｜tool▁sep｜>(.*?)(?:<｜tool▁call▁end｜>|(?=<｜tool▁call▁begin｜>)|$)",
    re.DOTALL,
)
_CODE_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


def _kimi_name(call_id: str) -> str:
    name = call_id.rsplit(":", 1)[0] if ":" in call_id else call_id
    return name.removeprefix("functions.").strip()


def _parse_sections(
    text: str,
    section: re.Pattern[str],
    call: re.Pattern[str],
    read_call: Callable[[re.Match[str]], ParsedToolCall | None],
) -> tuple[list[ParsedToolCall], list[tuple[int, int]]]:
    """Calls inside the tool-call sections of ``text`` (the whole text when it has none), and the
    spans to remove: a section that held a call goes whole; without sections, each call."""
    calls: list[ParsedToolCall] = []
    spans: list[tuple[int, int]] = []
    regions: list[tuple[int, int, tuple[int, int] | None]] = [
        (m.start(1), m.end(1), m.span()) for m in section.finditer(text)
    ] or [(0, len(text), None)]
    for start, end, span in regions:
        found_here = False
        for match in call.finditer(text, start, end):
            parsed = read_call(match)
            if parsed is None:
                continue
            calls.append(parsed)
            found_here = True
            if span is None:
                spans.append(match.span())
        if found_here and span is not None:
            spans.append(span)
    return calls, spans


def _kimi_call(match: re.Match[str]) -> ParsedToolCall | None:
    name = _kimi_name(match.group(1))
    if not name:
        return None
    arguments, malformed = decode_arguments(match.group(2).strip())
    return ParsedToolCall(name, arguments, match.group(1).strip(), malformed)


def _deepseek_call(match: re.Match[str]) -> ParsedToolCall | None:
    head, body = match.group(1).strip(), match.group(2)
    if head == "function":  # V3: type, then name on the first line, then fenced JSON
        name, _, body = body.partition("\n")
        name = name.strip()
    else:
        name = head
    if not name:
        return None
    fence = _CODE_FENCE.match(body)
    arguments, malformed = decode_arguments((fence.group(1) if fence else body).strip())
    return ParsedToolCall(name, arguments, None, malformed)


def _parse_kimi(text: str) -> tuple[list[ParsedToolCall], list[tuple[int, int]]]:
    return _parse_sections(text, _KIMI_SECTION, _KIMI_CALL, _kimi_call)


def _parse_deepseek(text: str) -> tuple[list[ParsedToolCall], list[tuple[int, int]]]:
    return _parse_sections(text, _DS_SECTION, _DS_CALL, _deepseek_call)


def parse_kimi_k2(text: str) -> tuple[list[ParsedToolCall], str]:
    calls, spans = _parse_kimi(text)
    if not calls:
        calls, spans = _parse_deepseek(text)
    return calls, remove_spans(text, spans)


def render_kimi_k2(calls: list[ParsedToolCall]) -> str:
    body = "".join(
        f"<|tool_call_begin|>functions.{call.name}:{i}<|tool_call_argument_begin|>"
        f"{dumps(call.arguments)}<|tool_call_end|>"
        for i, call in enumerate(calls)
    )
    return f"<|tool_calls_section_begin|>{body}<|tool_calls_section_end|>"
