"""Rewriting what crosses the boundary: every string of a cloud-bound request, and back.

A chat request's cloud-visible text is every string of its ``messages``: the instruction,
tool outputs with file contents, other agents' messages (a delegation's report, a
consultation), the assistant's own earlier turns and its tool-call arguments. Those strings
go through the guard's ``redact`` function; the request's other keys (model, sampling, tool
schemas) are the harness's own and cross unchanged. Identifiers of the protocol (``role``,
``tool_call_id``, a tool's ``name``) are never rewritten.

Tool-call ``arguments`` are JSON text: they are parsed and their strings rewritten one by
one, so a value with a quote in it can neither hide from a detector in its escaped form nor
break the JSON when it is restored. Answers are restored the same way (``restore_answer``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from agbench.live.privacy.placeholders import PlaceholderMap

#: Message keys that are protocol, not content.
PROTOCOL_KEYS = frozenset({"role", "tool_call_id", "id", "type", "name"})

TextMap = Callable[[str], str]


def _map_json_text(text: str, fn: TextMap) -> str:
    """A JSON document's strings mapped by ``fn`` (re-encoded); plain ``fn`` if not JSON."""
    try:
        parsed = json.loads(text)
    except ValueError:
        return fn(text)
    if isinstance(parsed, str):
        return fn(text)
    mapped = _map_all(parsed, fn)
    # Re-encoded only when something changed: an unchanged history keeps its exact bytes.
    return text if mapped == parsed else json.dumps(mapped, ensure_ascii=False)


def _map_all(value: Any, fn: TextMap) -> Any:
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, dict):
        return {k: _map_all(v, fn) for k, v in value.items()}
    if isinstance(value, list):
        return [_map_all(v, fn) for v in value]
    return value


def _map_message(value: Any, fn: TextMap, key: str = "") -> Any:
    if isinstance(value, str):
        if key in PROTOCOL_KEYS:
            return value
        return _map_json_text(value, fn) if key == "arguments" else fn(value)
    if isinstance(value, dict):
        return {k: _map_message(v, fn, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_map_message(v, fn) for v in value]
    return value


def map_request(body: dict[str, Any], fn: TextMap) -> dict[str, Any]:
    """A copy of a chat request with every cloud-visible message string mapped by ``fn``."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        return body
    return {**body, "messages": [_map_message(m, fn) for m in messages]}


def restore_answer(value: Any, placeholders: PlaceholderMap) -> Any:
    """A (non-streamed) answer with the attempt's placeholders replaced by the originals."""
    return _restore(value, placeholders, "")


def _restore(value: Any, placeholders: PlaceholderMap, key: str) -> Any:
    if isinstance(value, str):
        if key == "arguments":
            return _map_json_text(value, placeholders.restore)
        return placeholders.restore(value)
    if isinstance(value, dict):
        return {k: _restore(v, placeholders, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_restore(v, placeholders, "") for v in value]
    return value


__all__ = ["PROTOCOL_KEYS", "map_request", "restore_answer"]
