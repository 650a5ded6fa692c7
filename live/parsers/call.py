"""The tool call every parser produces, and the one place raw arguments become a dict.

Every format ends in the same shape (a name and a JSON-object of arguments) so that the agent
loop, the trace and the replay agent never care which model wrote the call. Arguments that
cannot be decoded are kept verbatim under ``_raw`` and the call is marked ``malformed`` rather
than dropped: a model that names a tool but garbles its arguments made a tool call, and the
trace must show it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agbench.live.parsers.values import loads_strict

#: Keys that different model families use for the function name and for its arguments.
NAME_KEYS = ("name", "tool_name", "function_name", "function")
ARGUMENT_KEYS = ("arguments", "parameters", "args", "input")


@dataclass
class ParsedToolCall:
    """One tool call: the tool's name and its arguments as a JSON object."""

    name: str
    arguments: dict[str, Any]
    id: str | None = None
    #: True when the arguments could not be decoded and are kept as ``{"_raw": text}``.
    malformed: bool = field(default=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": self.arguments}


def decode_arguments(raw: Any) -> tuple[dict[str, Any], bool]:
    """Arguments as a dict, and whether they were malformed.

    Accepts a dict, a JSON string (OpenAI style), a doubly encoded JSON string (some servers),
    ``None``/empty (a call without arguments).
    """
    if raw is None:
        return {}, False
    if isinstance(raw, dict):
        return raw, False
    if isinstance(raw, str):
        if not raw.strip():
            return {}, False
        try:
            value = loads_strict(raw)
        except ValueError:
            return {"_raw": raw}, True
        if isinstance(value, str):  # doubly encoded
            try:
                value = loads_strict(value)
            except ValueError:
                return {"_raw": raw}, True
        if isinstance(value, dict):
            return value, False
        return {"_raw": raw}, True
    return {"_raw": json.dumps(raw, ensure_ascii=False, default=str)}, True


def call_from_object(
    obj: Any, *, allow_single_key: bool = False, require_arguments: bool = False
) -> ParsedToolCall | None:
    """A call from a decoded JSON object, or None when it does not look like one.

    Recognises ``{"name", "arguments"|"parameters"|...}``, ``{"function": {...}}`` (OpenAI
    tool_call objects), Cohere's ``tool_name``, and, when ``allow_single_key`` (inside
    markers that say "these are tool calls", e.g. Apertus), ``{"tool": {args}}``.
    ``require_arguments``: JSON found in prose with no marker must carry an arguments key, so
    that an answer such as ``{"name": "Alice"}`` is not mistaken for a call.
    """
    if not isinstance(obj, dict):
        return None
    function = obj.get("function")
    if isinstance(function, dict) and isinstance(function.get("name"), str):
        call = call_from_object(function, require_arguments=require_arguments)
        if call is not None and isinstance(obj.get("id"), str):
            call.id = obj["id"]
        return call
    name = next((obj[k] for k in NAME_KEYS if isinstance(obj.get(k), str)), None)
    if name is not None and name.strip():
        extra = set(obj) - set(NAME_KEYS) - set(ARGUMENT_KEYS) - {"id", "type", "tool_call_id"}
        has_arguments = any(k in obj for k in ARGUMENT_KEYS)
        if not has_arguments and (extra or require_arguments):
            return None  # {"name": ..., "other": ...} is data, not a call
        raw_args = next((obj[k] for k in ARGUMENT_KEYS if k in obj), None)
        arguments, malformed = decode_arguments(raw_args)
        call_id = obj.get("id", obj.get("tool_call_id"))
        return ParsedToolCall(
            name.strip(), arguments, call_id if isinstance(call_id, str) else None, malformed
        )
    if allow_single_key and len(obj) == 1:
        ((key, value),) = obj.items()
        if isinstance(key, str) and key.strip() and isinstance(value, dict):
            return ParsedToolCall(key.strip(), value)
    return None
