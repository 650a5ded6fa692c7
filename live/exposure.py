"""Finding a task's sensitive items in what is sent to the cloud (the exposure metric).

Exposure is measured on what actually leaves the device: the request bodies the recording
proxy forwards to the cloud upstream. Items are matched in the *decoded* text of the request
(JSON string escapes would otherwise hide ``"`` or non-ASCII characters), case-insensitively
and with runs of whitespace collapsed, because a model copying an item into a message often
changes case or wraps a line; each item is reported once per attempt with where it was first
seen (the role of the message that carried it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

_SPACE = re.compile(r"\s+")

# Message role -> the ``where`` column of the exposures table.
_ROLE_WHERE = {
    "system": "instruction",
    "user": "instruction",
    "tool": "tool_output",
    "function": "tool_output",
}


def normalise(text: str) -> str:
    return _SPACE.sub(" ", text).strip().casefold()


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


def payload_parts(body: Any) -> list[tuple[str, str]]:
    """(where, text) pieces of a chat request body, messages first, then anything else."""
    parts: list[tuple[str, str]] = []
    if isinstance(body, dict) and isinstance(body.get("messages"), list):
        for message in body["messages"]:
            role = message.get("role", "") if isinstance(message, dict) else ""
            where = _ROLE_WHERE.get(role, "message")
            parts.append((where, "\n".join(_strings(message))))
        rest = {k: v for k, v in body.items() if k != "messages"}
        parts.append(("request", "\n".join(_strings(rest))))
    else:
        parts.append(("request", "\n".join(_strings(body)) if not isinstance(body, str) else body))
    return parts


def find_items(body: Any, items: Iterable[str]) -> list[tuple[str, str]]:
    """(item, where) for each item present in ``body`` (a request dict or text), in item order."""
    wanted = [(item, normalise(item)) for item in items if item and item.strip()]
    parts = [(where, normalise(text)) for where, text in payload_parts(body)]
    found: list[tuple[str, str]] = []
    for item, needle in wanted:
        for where, text in parts:
            if needle in text:
                found.append((item, where))
                break
    return found


@dataclass
class ExposureTracker:
    """Remembers which of one attempt's items have already been seen in cloud-bound payloads."""

    items: list[str]
    seen: dict[str, tuple[float, str]] = field(default_factory=dict)

    def observe(self, body: Any, t: float) -> list[tuple[str, str]]:
        """New (item, where) pairs first seen in ``body`` at time ``t``."""
        remaining = [i for i in self.items if i not in self.seen]
        if not remaining:
            return []
        new = find_items(body, remaining)
        for item, where in new:
            self.seen[item] = (t, where)
        return new
