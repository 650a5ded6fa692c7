"""OpenAI Harmony (gpt-oss) raw messages, the fallback when a server returns them as text.

::

    <|channel|>analysis<|message|>Need the weather.<|end|>
    <|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json
    <|message|>{"city":"Paris"}<|call|>

A message whose header names a recipient (``to=functions.NAME``, or a built-in such as
``to=python``) is a tool call; its body is the JSON arguments. The remaining content is the
``final`` channel's text. Native ``tool_calls`` and legacy ``function_call`` (what vLLM's
``openai`` parser returns for gpt-oss) are read before this, by :func:`parse_message`.
"""

from __future__ import annotations

import re

from agbench.live.parsers.call import ParsedToolCall, decode_arguments
from agbench.live.parsers.values import dumps

_MESSAGE = "<|message|>"
_BOUNDARY = re.compile(r"<\|start\|>|<\|end\|>|<\|call\|>|<\|return\|>")
_RECIPIENT = re.compile(r"\bto=([\w.\-]+)")
_CHANNEL = re.compile(r"<\|channel\|>\s*(\w+)")
_NOT_TOOLS = {"assistant", "user", "system", "developer", "all"}


def parse_harmony(text: str) -> tuple[list[ParsedToolCall], str]:
    if _MESSAGE not in text:
        return [], text
    calls: list[ParsedToolCall] = []
    finals: list[str] = []
    others: list[str] = []
    pos = 0
    while True:
        at = text.find(_MESSAGE, pos)
        if at < 0:
            break
        header_start = 0
        for boundary in _BOUNDARY.finditer(text, pos, at):
            header_start = boundary.end()
        if header_start == 0 and pos > 0:
            header_start = pos
        header = text[header_start:at]
        body_start = at + len(_MESSAGE)
        end = _BOUNDARY.search(text, body_start)
        body_end = end.start() if end else len(text)
        body = text[body_start:body_end]
        pos = end.end() if end else len(text)
        recipient = _RECIPIENT.search(header)
        channel = _CHANNEL.search(header)
        if recipient and recipient.group(1) not in _NOT_TOOLS:
            name = recipient.group(1).removeprefix("functions.")
            if name:
                arguments, malformed = decode_arguments(body.strip())
                calls.append(ParsedToolCall(name, arguments, None, malformed))
        elif channel and channel.group(1) == "final":
            finals.append(body.strip())
        elif not channel or channel.group(1) != "analysis":
            others.append(body.strip())
        if end is None:
            break
    remaining = "\n".join(p for p in (finals or others) if p)
    return calls, remaining


def render_harmony(calls: list[ParsedToolCall]) -> str:
    return "".join(
        f"<|start|>assistant<|channel|>commentary to=functions.{call.name} <|constrain|>json"
        f"<|message|>{dumps(call.arguments)}<|call|>"
        for call in calls
    )
