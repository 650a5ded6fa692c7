"""Qwen3-Coder style XML calls (vLLM ``qwen3_xml``/``qwen3_coder``; Nemotron-v3; Seed-OSS).

::

    <tool_call>
    <function=read_file>
    <parameter=path>
    src/main.py
    </parameter>
    </function>
    </tool_call>

Seed-OSS writes the same body inside ``<seed:tool_call>…</seed:tool_call>``. Values are bare
text (JSON when they strictly decode, see :mod:`values`); one newline after the opening and
before the closing parameter tag is layout, not value. Missing closing tags (a stop sequence
that swallowed them) are tolerated.
"""

from __future__ import annotations

import re

from agbench.live.parsers.call import ParsedToolCall
from agbench.live.parsers.format import remove_spans
from agbench.live.parsers.values import decode_text_value, encode_text_value, trim_layout

_FUNCTION = re.compile(r"<function=([^>\n]+)>(.*?)(?:</function>|(?=<function=)|$)", re.DOTALL)
_PARAMETER = re.compile(
    r"<parameter=([^>\n]+)>(.*?)(?:</parameter>|(?=<parameter=)|(?=</function>)|$)", re.DOTALL
)


def parse_functions(body: str) -> list[ParsedToolCall]:
    """Every ``<function=…>`` element in ``body``."""
    calls: list[ParsedToolCall] = []
    for match in _FUNCTION.finditer(body):
        name = match.group(1).strip()
        if not name:
            continue
        arguments = {
            p.group(1).strip(): decode_text_value(trim_layout(p.group(2)))
            for p in _PARAMETER.finditer(match.group(2))
        }
        calls.append(ParsedToolCall(name, arguments))
    return calls


def _parse_tagged(text: str, open_tag: str, close_tag: str) -> tuple[list[ParsedToolCall], str]:
    block = re.compile(re.escape(open_tag) + r"(.*?)(?:" + re.escape(close_tag) + r"|$)", re.DOTALL)
    calls: list[ParsedToolCall] = []
    spans: list[tuple[int, int]] = []
    for match in block.finditer(text):
        found = parse_functions(match.group(1))
        if found:
            calls.extend(found)
            spans.append(match.span())
    if not calls and open_tag not in text:
        # Some templates drop the wrapper and emit bare <function=…> elements.
        for match in _FUNCTION.finditer(text):
            found = parse_functions(match.group(0))
            if found:
                calls.extend(found)
                spans.append(match.span())
    return calls, remove_spans(text, spans)


def _render_tagged(calls: list[ParsedToolCall], open_tag: str, close_tag: str) -> str:
    blocks = []
    for call in calls:
        params = "".join(
            f"<parameter={key}>\n{encode_text_value(value)}\n</parameter>\n"
            for key, value in call.arguments.items()
        )
        blocks.append(f"{open_tag}\n<function={call.name}>\n{params}</function>\n{close_tag}")
    return "\n".join(blocks)


def parse_qwen3(text: str) -> tuple[list[ParsedToolCall], str]:
    return _parse_tagged(text, "<tool_call>", "</tool_call>")


def render_qwen3(calls: list[ParsedToolCall]) -> str:
    return _render_tagged(calls, "<tool_call>", "</tool_call>")


def parse_seed_oss(text: str) -> tuple[list[ParsedToolCall], str]:
    return _parse_tagged(text, "<seed:tool_call>", "</seed:tool_call>")


def render_seed_oss(calls: list[ParsedToolCall]) -> str:
    return _render_tagged(calls, "<seed:tool_call>", "</seed:tool_call>")
