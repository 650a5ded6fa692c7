"""The JSON a judge must answer with, and the strict reading of its reply.

A judge reply is accepted only when it is one JSON object (optionally inside a single
```json fence, which small models add unasked) that has every required key with the right
type and nothing else. Anything else is a ``JudgeParseError``: the grader asks once more with
a repair prompt and, failing again, the row is ``failed_grader`` with ``judge_parse_error``.

The schemas are plain JSON Schema, so an endpoint that supports structured output can be
given them as ``response_format``; the reader below checks the subset they use (object,
required, additionalProperties false, string / number / boolean / array of strings, bounds).
"""

from __future__ import annotations

import json
import re
from typing import Any

VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pass": {"type": "boolean"},
        "score": {"type": "number", "minimum": 0, "maximum": 1},
        "reason": {"type": "string"},
    },
    "required": ["pass", "score", "reason"],
    "additionalProperties": False,
}
EXPOSURE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "items": {"type": "array", "items": {"type": "string"}},
        "reason": {"type": "string"},
    },
    "required": ["items", "reason"],
    "additionalProperties": False,
}
_FENCE = re.compile(r"^\s*```(?:json)?\s*\n?(.*?)\n?\s*```\s*$", re.S)
_TYPES: dict[str, tuple[type, ...]] = {
    "boolean": (bool,),
    "number": (int, float),
    "string": (str,),
    "array": (list,),
    "object": (dict,),
}


class JudgeParseError(ValueError):
    """A judge reply that is not one JSON object of the required shape."""


def _check(value: Any, schema: dict[str, Any], where: str) -> None:
    kind = str(schema.get("type", ""))
    allowed = _TYPES.get(kind)
    if allowed is None:
        return
    if not isinstance(value, allowed) or (kind == "number" and isinstance(value, bool)):
        raise JudgeParseError(f"{where} must be a {kind}, got {type(value).__name__}")
    if kind == "number":
        if "minimum" in schema and value < schema["minimum"]:
            raise JudgeParseError(f"{where} is below {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            raise JudgeParseError(f"{where} is above {schema['maximum']}")
    if kind == "array":
        assert isinstance(value, list)
        for i, item in enumerate(value):
            _check(item, schema.get("items", {}), f"{where}[{i}]")
    if kind == "object":
        assert isinstance(value, dict)
        props: dict[str, Any] = schema.get("properties", {})
        missing = [k for k in schema.get("required", []) if k not in value]
        if missing:
            raise JudgeParseError(f"{where} lacks {', '.join(missing)}")
        extra = [k for k in value if k not in props]
        if extra and schema.get("additionalProperties") is False:
            raise JudgeParseError(f"{where} has unexpected keys {', '.join(map(str, extra))}")
        for key, sub in props.items():
            if key in value:
                _check(value[key], sub, f"{where}.{key}")


def parse_reply(text: str, schema: dict[str, Any]) -> dict[str, Any]:
    """The reply as a dict that satisfies ``schema``, or ``JudgeParseError`` saying why not."""
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    if not body:
        raise JudgeParseError("empty reply")
    try:
        value = json.loads(body)
    except json.JSONDecodeError as exc:
        raise JudgeParseError(f"not JSON ({exc.msg} at character {exc.pos})") from None
    if not isinstance(value, dict):
        raise JudgeParseError(f"not a JSON object but a {type(value).__name__}")
    _check(value, schema, "reply")
    return value


__all__ = ["EXPOSURE_SCHEMA", "VERDICT_SCHEMA", "JudgeParseError", "parse_reply"]
