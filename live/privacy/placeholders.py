"""The attempt's placeholder map: each sensitive value gets one stable ``<LABEL_N>``.

The same value keeps its placeholder for the whole attempt, across calls and agents, so a
cloud model that read ``<EMAIL_3>`` in one turn and writes it back three turns later names
the same address; values are keyed case- and whitespace-insensitively (a model that re-cases
an address still names the same item). The map lives in the proxy's memory for the attempt
only: it is never logged, written or handed to an agent, and is dropped with the attempt.

Restoring replaces every known placeholder with the value first seen for it; a text that
only looks like a placeholder (``<EMAIL_99>`` never issued) is left as it is.
"""

from __future__ import annotations

import json
import re
from collections import Counter

#: A placeholder: ``<`` label (capitals, digits after the first letter, underscores) ``_N>``.
PLACEHOLDER = re.compile(r"<([A-Z][A-Z0-9_]*?)_(\d+)>")
#: The longest placeholder the stream restorer holds back waiting for its end.
MAX_PLACEHOLDER_LEN = 48
_SPACE = re.compile(r"\s+")


def _key(value: str) -> str:
    return _SPACE.sub(" ", value).strip().casefold()


def _clean_label(label: str) -> str:
    label = re.sub(r"[^A-Z0-9_]+", "_", label.upper()).strip("_") or "PII"
    return label if label[0].isalpha() else f"PII_{label}"


class PlaceholderMap:
    """value <-> placeholder for one attempt (in memory only; never serialised)."""

    def __init__(self) -> None:
        self._by_key: dict[str, str] = {}
        self._values: dict[str, str] = {}  # placeholder -> original value
        self._counts: Counter[str] = Counter()

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:  # never show the values
        return f"PlaceholderMap({len(self)} placeholders)"

    def placeholder(self, value: str, label: str) -> str:
        """The value's placeholder, issued on first sight (``<EMAIL_1>``, ``<EMAIL_2>``...)."""
        key = _key(value)
        known = self._by_key.get(key)
        if known is not None:
            return known
        label = _clean_label(label)
        self._counts[label] += 1
        token = f"<{label}_{self._counts[label]}>"
        self._by_key[key] = token
        self._values[token] = value
        return token

    def knows(self, placeholder: str) -> bool:
        return placeholder in self._values

    def restore(self, text: str, *, json_escaped: bool = False) -> str:
        """``text`` with every issued placeholder replaced by its original value.

        ``json_escaped``: the text is the inside of a JSON string literal (tool-call arguments
        as they stream), so the value goes in escaped (a quote in it must not end the string).
        """
        if "<" not in text or not self._values:
            return text

        def value(match: re.Match[str]) -> str:
            original = self._values.get(match.group(0))
            if original is None:
                return match.group(0)
            return json.dumps(original, ensure_ascii=False)[1:-1] if json_escaped else original

        return PLACEHOLDER.sub(value, text)

    def could_complete(self, tail: str) -> bool:
        """Whether ``tail`` (which starts with ``<``) may be the start of an issued placeholder."""
        return any(p.startswith(tail) for p in self._values)


__all__ = ["MAX_PLACEHOLDER_LEN", "PLACEHOLDER", "PlaceholderMap"]
