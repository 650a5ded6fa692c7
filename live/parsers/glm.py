"""GLM-4.5 / GLM-4.6 / GLM-4.7 calls (vLLM ``glm45``, ``glm47``).

::

    <tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>

GLM-4.5 puts newlines between the elements; GLM-4.7 does not. Both parse. Values are bare
text, JSON when they strictly decode.
"""

from __future__ import annotations

import re

from agbench.live.parsers.call import ParsedToolCall
from agbench.live.parsers.format import remove_spans
from agbench.live.parsers.values import decode_text_value, encode_tag_value, trim_layout

_BLOCK = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.DOTALL)
_NAME = re.compile(r"\s*([^\s<>{}\[\]()\"',]+)\s*(?=<arg_key>|$)")
_PAIR = re.compile(r"<arg_key>(.*?)</arg_key>\s*<arg_value>(.*?)(?:</arg_value>|$)", re.DOTALL)


def parse_glm47(text: str) -> tuple[list[ParsedToolCall], str]:
    calls: list[ParsedToolCall] = []
    spans: list[tuple[int, int]] = []
    for block in _BLOCK.finditer(text):
        body = block.group(1)
        name = _NAME.match(body)
        if name is None:
            continue
        arguments = {
            pair.group(1).strip(): decode_text_value(trim_layout(pair.group(2)))
            for pair in _PAIR.finditer(body, name.end())
        }
        calls.append(ParsedToolCall(name.group(1), arguments))
        spans.append(block.span())
    return calls, remove_spans(text, spans)


def render_glm47(calls: list[ParsedToolCall]) -> str:
    return "\n".join(
        "<tool_call>"
        + call.name
        + "".join(
            f"<arg_key>{key}</arg_key><arg_value>{encode_tag_value(value)}</arg_value>"
            for key, value in call.arguments.items()
        )
        + "</tool_call>"
        for call in calls
    )
