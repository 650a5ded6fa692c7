"""Decoding and encoding of argument values written as text.

XML-ish formats (Qwen3, MiniMax, GLM) write each argument value as bare text: a model writes
``<parameter=path>src/main.py</parameter>`` for a string and ``<parameter=n>3</parameter>``
for a number. Without the tool schema the only sound rule is "JSON if it strictly decodes,
else the text itself"; rendering applies the inverse rule (a string that would decode as JSON
is written JSON-quoted) so that render → parse is exact.
"""

from __future__ import annotations

import json
import re
from typing import Any


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-JSON constant {name}")


def loads_strict(text: str) -> Any:
    """``json.loads`` without NaN/Infinity (which are not JSON and would poison the trace)."""
    return json.loads(text, parse_constant=_reject_constant)


def decode_text_value(text: str) -> Any:
    """A bare-text argument value: JSON when it strictly decodes, else the text."""
    try:
        return loads_strict(text)
    except (ValueError, RecursionError):
        return text


def encode_text_value(value: Any) -> str:
    """Inverse of :func:`decode_text_value`: strings bare unless they would decode as JSON."""
    if isinstance(value, str):
        try:
            loads_strict(value)
        except (ValueError, RecursionError):
            return value
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False)


def dumps(value: Any) -> str:
    """Compact-ish JSON as models write it (``", "`` separators, non-ASCII kept)."""
    return json.dumps(value, ensure_ascii=False)


def json_values_at(text: str) -> list[tuple[int, int, Any]]:
    """Every top-level JSON object, or array of objects, in ``text``: (start, end, value).

    Scans left to right; after a value decodes, scanning resumes after it, so nested objects are
    not reported twice. Only ``{"`` / ``{}`` and ``[{`` / ``[]`` (whitespace allowed) are tried,
    which is all a tool call can start with, so prose full of brackets stays linear. Used where
    JSON is embedded in prose.
    """
    decoder = json.JSONDecoder(parse_constant=_reject_constant)
    found: list[tuple[int, int, Any]] = []
    for start in _CANDIDATE.finditer(text):
        i = start.start()
        if found and i < found[-1][1]:
            continue
        try:
            value, end = decoder.raw_decode(text, i)
        except ValueError:
            continue
        except RecursionError:
            break  # nested a thousand deep: not a tool call, and scanning on would be quadratic
        found.append((i, end, value))
    return found


_CANDIDATE = re.compile(r"\{\s*[\"}]|\[\s*[{\]]")


def trim_layout(value: str) -> str:
    """Drop one newline after an opening tag and one before a closing tag (layout, not value)."""
    if value.startswith("\n"):
        value = value[1:]
    if value.endswith("\n"):
        value = value[:-1]
    return value


def encode_tag_value(value: Any) -> str:
    """A value for between tags, inverse of ``decode_text_value(trim_layout(...))``.

    Written inline, as models do, unless it starts or ends with a newline, in which case layout
    newlines protect it.
    """
    text = encode_text_value(value)
    if text.startswith("\n") or text.endswith("\n"):
        return f"\n{text}\n"
    return text
