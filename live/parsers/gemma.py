"""Gemma-family calls: Gemma 4 and FunctionGemma (vLLM ``gemma4``, ``functiongemma``).

::

    <|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3}<tool_call|>          (Gemma 4)
    <start_function_call>call:get_weather{city:<escape>Paris<escape>}<end_function_call>

Arguments are a JSON-like object with bare keys, strings between a delimiter token
(``<|"|>`` or ``<escape>``) and bare numbers, booleans, nested objects and arrays. The same
small recursive-descent reader serves both; only the tokens differ.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from agbench.live.parsers.call import ParsedToolCall
from agbench.live.parsers.format import remove_spans
from agbench.live.parsers.values import loads_strict


@dataclass(frozen=True)
class GemmaTokens:
    open: str
    close: str
    quote: str


GEMMA4 = GemmaTokens("<|tool_call>", "<tool_call|>", '<|"|>')
FUNCTIONGEMMA = GemmaTokens("<start_function_call>", "<end_function_call>", "<escape>")

_CALL = re.compile(r"call:([\w.\-]+)\s*(?=\{)")


class _Reader:
    """Reads one value in the Gemma argument syntax; raises ValueError on anything else."""

    def __init__(self, text: str, tokens: GemmaTokens) -> None:
        self.text = text
        self.quote = tokens.quote
        #: Tokens that cannot occur in a bare value or key: meeting one means this is not a call
        #: (stopping there keeps garbage with many open tags linear).
        self.stops = (tokens.quote, tokens.open, tokens.close, "{", "[")
        self.pos = 0

    def _skip_ws(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t\r\n":
            self.pos += 1

    def _peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def value(self, depth: int = 0) -> Any:
        if depth > 64:
            raise ValueError("nested too deep")
        self._skip_ws()
        if self.text.startswith(self.quote, self.pos):
            return self._string()
        ch = self._peek()
        if ch == "{":
            return self.object(depth)
        if ch == "[":
            return self._array(depth)
        return self._scalar()

    def _string(self) -> str:
        start = self.pos + len(self.quote)
        end = self.text.find(self.quote, start)
        if end < 0:
            raise ValueError("unterminated string")
        self.pos = end + len(self.quote)
        return self.text[start:end]

    def _scalar(self) -> Any:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in ",}]":
            if self.text.startswith(self.stops, self.pos):
                raise ValueError("token inside bare value")
            self.pos += 1
        raw = self.text[start : self.pos].strip()
        if not raw:
            raise ValueError("empty value")
        try:
            return loads_strict(raw)
        except ValueError:
            return raw  # FunctionGemma sometimes leaves short strings bare

    def _key(self) -> str:
        self._skip_ws()
        if self.text.startswith(self.quote, self.pos):
            return self._string()
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in ":{}[],":
            if self.text.startswith(self.stops, self.pos) or self.pos - start > 256:
                raise ValueError("not a key")
            self.pos += 1
        key = self.text[start : self.pos].strip().strip('"')
        if not key:
            raise ValueError("empty key")
        return key

    def object(self, depth: int = 0) -> dict[str, Any]:
        if self._peek() != "{":
            raise ValueError("expected {")
        self.pos += 1
        result: dict[str, Any] = {}
        self._skip_ws()
        if self._peek() == "}":
            self.pos += 1
            return result
        while True:
            key = self._key()
            self._skip_ws()
            if self._peek() != ":":
                raise ValueError("expected :")
            self.pos += 1
            result[key] = self.value(depth + 1)
            self._skip_ws()
            ch = self._peek()
            self.pos += 1
            if ch == "}":
                return result
            if ch != ",":
                raise ValueError("expected , or }")

    def _array(self, depth: int) -> list[Any]:
        self.pos += 1
        items: list[Any] = []
        self._skip_ws()
        if self._peek() == "]":
            self.pos += 1
            return items
        while True:
            items.append(self.value(depth + 1))
            self._skip_ws()
            ch = self._peek()
            self.pos += 1
            if ch == "]":
                return items
            if ch != ",":
                raise ValueError("expected , or ]")


def _parse(text: str, tokens: GemmaTokens) -> tuple[list[ParsedToolCall], str]:
    calls: list[ParsedToolCall] = []
    spans: list[tuple[int, int]] = []
    search_from = 0
    while True:
        start = text.find(tokens.open, search_from)
        if start < 0:
            break
        pos = start + len(tokens.open)
        block_calls: list[ParsedToolCall] = []
        while True:
            match = _CALL.match(text, pos) or _CALL.match(text, _skip_ws(text, pos))
            if match is None:
                break
            reader = _Reader(text, tokens)
            reader.pos = match.end()
            try:
                arguments = reader.object()
            except ValueError:
                break
            block_calls.append(ParsedToolCall(match.group(1), arguments))
            pos = _skip_ws(text, reader.pos)
        if text.startswith(tokens.close, pos):
            pos += len(tokens.close)
        if block_calls:
            calls.extend(block_calls)
            spans.append((start, pos))
        search_from = max(pos, start + 1)
    return calls, remove_spans(text, spans)


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _render_value(value: Any, quote: str) -> str:
    if isinstance(value, str):
        return f"{quote}{value}{quote}"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{_render_value(v, quote)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_render_value(v, quote) for v in value) + "]"
    return json.dumps(value)


def _render(calls: list[ParsedToolCall], tokens: GemmaTokens) -> str:
    return "".join(
        f"{tokens.open}call:{call.name}{_render_value(call.arguments, tokens.quote)}{tokens.close}"
        for call in calls
    )


def parse_gemma4(text: str) -> tuple[list[ParsedToolCall], str]:
    return _parse(text, GEMMA4)


def render_gemma4(calls: list[ParsedToolCall]) -> str:
    return _render(calls, GEMMA4)


def parse_functiongemma(text: str) -> tuple[list[ParsedToolCall], str]:
    return _parse(text, FUNCTIONGEMMA)


def render_functiongemma(calls: list[ParsedToolCall]) -> str:
    return _render(calls, FUNCTIONGEMMA)
