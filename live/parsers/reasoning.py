"""Separating a model's reasoning from the text that may hold its tool calls.

Reasoning models draft tool calls while thinking; those drafts are not calls. Servers with a
reasoning parser split them off already, but a plain llama-server returns
``<think>…</think>`` inline, and some chat templates open ``<think>`` in the prompt so only the
closing tag reaches us. Parsers therefore see only the text after the last closing tag, and the
reasoning is handed back untouched as part of the remaining content.
"""

from __future__ import annotations

import re

_CLOSE = re.compile(r"</think>|</seed:think>|</thinking>")
_OPEN = re.compile(r"<think>|<seed:think>|<thinking>")


def split_reasoning(text: str) -> tuple[str, str]:
    """(reasoning, body): reasoning is everything up to the last closing think tag.

    A think block that never closes (generation stopped mid-thought) leaves only the text
    before it as the body.
    """
    last_close = None
    for last_close in _CLOSE.finditer(text):  # noqa: B007 - want the last match
        pass
    if last_close is not None:
        head, tail = text[: last_close.end()], text[last_close.end() :]
        dangling = _OPEN.search(tail)
        if dangling:
            return head + tail[dangling.start() :], tail[: dangling.start()]
        return head, tail
    dangling = _OPEN.search(text)
    if dangling:
        return text[dangling.start() :], text[: dangling.start()]
    return "", text
