"""Finding tool calls in a model's reply: the entry points the agent loop and the CLI call.

The one rule every entry point keeps: garbage in gives no calls, never an exception. A model's
output is arbitrary text, and a parser bug must cost one turn's tool calls, not the run.
"""

from __future__ import annotations

from typing import Any

from agbench.errors import AgbenchError
from agbench.live.parsers.call import ParsedToolCall
from agbench.live.parsers.format import ToolCallFormat
from agbench.live.parsers.native import native_calls
from agbench.live.parsers.reasoning import split_reasoning
from agbench.live.parsers.registry import AUTO, AUTO_ORDER, FORMATS, normalise_parser_name


def _apply(fmt: ToolCallFormat, text: str) -> tuple[list[ParsedToolCall], str]:
    try:
        if fmt.strip_reasoning:
            reasoning, body = split_reasoning(text)
            calls, rest = fmt.parse(body)
            if calls:
                return calls, "\n".join(p for p in (reasoning.strip(), rest.strip()) if p)
            return [], text
        calls, rest = fmt.parse(text)
    except Exception:
        return [], text
    return (calls, rest) if calls else ([], text)


def _parse(text: str, canonical: str) -> tuple[list[ParsedToolCall], str]:
    if not isinstance(text, str) or not text:
        return [], text if isinstance(text, str) else ""
    if canonical != AUTO:
        return _apply(FORMATS[canonical], text)
    for name in AUTO_ORDER:
        calls, rest = _apply(FORMATS[name], text)
        if calls:
            return calls, rest
    return [], text


def parse_text(text: str, parser: str = "auto") -> list[ParsedToolCall]:
    """Tool calls written in ``text`` in the given format (``auto``: the first shape that matches)."""
    return _parse(text, normalise_parser_name(parser))[0]


def content_text(content: Any) -> str:
    """A message ``content`` as text: a string, or the text parts of a content-part list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part.get("text", "")
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""


def parse_message(message: dict[str, Any], parser: str = "auto") -> tuple[list[ParsedToolCall], str]:
    """Tool calls in an OpenAI chat ``message`` and the content left once their markup is removed.

    Native ``tool_calls`` come first (and legacy ``function_call``, except for
    ``openai-native``); when there are any, the content is returned untouched and not parsed,
    so a server that both parsed and echoed a call does not yield it twice. Otherwise the
    content is parsed with ``parser``. ``none`` disables text parsing only. ``reasoning_content``
    is never parsed: servers put drafts there, not calls.
    """
    canonical = normalise_parser_name(parser)
    if not isinstance(message, dict):
        return [], ""
    content = content_text(message.get("content"))
    try:
        calls = native_calls(message, legacy_function_call=canonical != "openai-native")
    except Exception:
        calls = []
    if calls:
        return calls, content
    if canonical in ("none", "openai-native", "vllm-compatible"):
        return [], content
    return _parse(content, canonical)


def render(calls: list[ParsedToolCall], parser: str) -> str:
    """``calls`` written as a model using ``parser``'s format would write them."""
    canonical = normalise_parser_name(parser)
    fmt = FORMATS.get(canonical)
    if fmt is None or fmt.render is None:
        raise AgbenchError(f"tool-call parser {parser!r} has no text form to render; name a format")
    rendered: str = fmt.render(calls)
    return rendered
