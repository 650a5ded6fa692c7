"""OpenAI-native ``message.tool_calls`` and vLLM's legacy ``message.function_call``.

These are structured, not text: the server already parsed the model's output. They are read
first for every parser. As text formats (``agbench parse --parser openai-native < file``) they
accept a saved chat-completion response, a message, or a ``tool_calls`` list as JSON.
"""

from __future__ import annotations

import json
from typing import Any

from agbench.live.parsers.call import ParsedToolCall, call_from_object, decode_arguments
from agbench.live.parsers.values import loads_strict


def native_calls(message: dict[str, Any], *, legacy_function_call: bool = True) -> list[ParsedToolCall]:
    """Calls in an OpenAI chat ``message``: ``tool_calls`` and, if allowed, ``function_call``."""
    calls: list[ParsedToolCall] = []
    tool_calls = message.get("tool_calls")
    if isinstance(tool_calls, list):
        for item in tool_calls:
            if not isinstance(item, dict):
                continue
            function = item.get("function")
            if not isinstance(function, dict) or not isinstance(function.get("name"), str):
                continue
            if not function["name"].strip():
                continue  # a streamed call whose name never arrived
            arguments, malformed = decode_arguments(function.get("arguments"))
            call_id = item.get("id")
            calls.append(
                ParsedToolCall(
                    function["name"], arguments, call_id if isinstance(call_id, str) else None, malformed
                )
            )
    function_call = message.get("function_call")
    if legacy_function_call and not calls and isinstance(function_call, dict):
        call = call_from_object(function_call)
        if call is not None:
            calls.append(call)
    return calls


def _message_of(document: Any) -> dict[str, Any] | None:
    if isinstance(document, list):
        return {"tool_calls": document}
    if not isinstance(document, dict):
        return None
    choices = document.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        inner = choices[0].get("message") or choices[0].get("delta")
        return inner if isinstance(inner, dict) else None
    if isinstance(document.get("message"), dict):
        return document["message"]  # type: ignore[no-any-return]
    if "tool_calls" in document or "function_call" in document:
        return document
    if isinstance(document.get("function"), dict):  # a single tool_call object
        return {"tool_calls": [document]}
    return None


def _parse_document(text: str, legacy: bool) -> tuple[list[ParsedToolCall], str]:
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[":
        return [], text
    try:
        document = loads_strict(stripped)
    except ValueError:
        return [], text
    message = _message_of(document)
    if message is None:
        return [], text
    calls = native_calls(message, legacy_function_call=legacy)
    if not calls:
        return [], text
    content = message.get("content")
    return calls, content if isinstance(content, str) else ""


def parse_openai_native(text: str) -> tuple[list[ParsedToolCall], str]:
    return _parse_document(text, legacy=False)


def parse_vllm_compatible(text: str) -> tuple[list[ParsedToolCall], str]:
    return _parse_document(text, legacy=True)


def render_native(calls: list[ParsedToolCall]) -> str:
    """An assistant message with ``tool_calls``, as JSON (arguments JSON-encoded, as on the wire)."""
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": call.id or f"call_{i}",
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(call.arguments, ensure_ascii=False)},
            }
            for i, call in enumerate(calls)
        ],
    }
    return json.dumps(message, ensure_ascii=False)
