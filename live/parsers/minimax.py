"""MiniMax-M2 calls (vLLM ``minimax_m2``).

::

    <minimax:tool_call>
    <invoke name="search">
    <parameter name="query">tool calling</parameter>
    <parameter name="limit">5</parameter>
    </invoke>
    </minimax:tool_call>

One block may hold several ``<invoke>`` elements (parallel calls). Values are bare text, JSON
when they strictly decode.
"""

from __future__ import annotations

import re

from agbench.live.parsers.call import ParsedToolCall
from agbench.live.parsers.format import remove_spans
from agbench.live.parsers.values import decode_text_value, encode_tag_value, trim_layout

_BLOCK = re.compile(r"<minimax:tool_call>(.*?)(?:</minimax:tool_call>|$)", re.DOTALL)
_INVOKE = re.compile(r"<invoke\s+name=\"([^\"]*)\"\s*>(.*?)(?:</invoke>|(?=<invoke\s)|$)", re.DOTALL)
_PARAMETER = re.compile(
    r"<parameter\s+name=\"([^\"]*)\"\s*>(.*?)(?:</parameter>|(?=<parameter\s)|(?=</invoke>)|$)", re.DOTALL
)


def parse_minimax_m2(text: str) -> tuple[list[ParsedToolCall], str]:
    calls: list[ParsedToolCall] = []
    spans: list[tuple[int, int]] = []
    for block in _BLOCK.finditer(text):
        found = []
        for invoke in _INVOKE.finditer(block.group(1)):
            name = invoke.group(1).strip()
            if not name:
                continue
            arguments = {
                p.group(1).strip(): decode_text_value(trim_layout(p.group(2)))
                for p in _PARAMETER.finditer(invoke.group(2))
            }
            found.append(ParsedToolCall(name, arguments))
        if found:
            calls.extend(found)
            spans.append(block.span())
    return calls, remove_spans(text, spans)


def render_minimax_m2(calls: list[ParsedToolCall]) -> str:
    invokes = []
    for call in calls:
        params = "".join(
            f'<parameter name="{key}">{encode_tag_value(value)}</parameter>\n'
            for key, value in call.arguments.items()
        )
        invokes.append(f'<invoke name="{call.name}">\n{params}</invoke>\n')
    return "<minimax:tool_call>\n" + "".join(invokes) + "</minimax:tool_call>"
