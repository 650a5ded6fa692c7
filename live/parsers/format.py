"""What a tool-call format is: a parser of text and, where possible, a renderer back to text."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agbench.live.parsers.call import ParsedToolCall

#: Parses model text into (calls, the text left once the call markup is removed).
ParseFn = Callable[[str], tuple[list[ParsedToolCall], str]]
#: Writes calls in the format, as the model would have.
RenderFn = Callable[[list[ParsedToolCall]], str]


@dataclass(frozen=True)
class ToolCallFormat:
    """A named text format for tool calls."""

    name: str
    description: str
    parse: ParseFn
    render: RenderFn | None = None
    #: Whether reasoning (<think> blocks) is stripped before parsing (False for formats, such
    #: as OpenAI JSON documents, that never carry inline reasoning).
    strip_reasoning: bool = True


def remove_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with the given (start, end) spans cut out, whitespace at the seams tidied."""
    if not spans:
        return text
    pieces: list[str] = []
    cursor = 0
    for start, end in sorted(spans):
        if start < cursor:
            continue
        pieces.append(text[cursor:start])
        cursor = end
    pieces.append(text[cursor:])
    kept = [p for p in (piece.strip() for piece in pieces) if p]
    return "\n".join(kept)
