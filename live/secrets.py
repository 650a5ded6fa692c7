"""Removing secrets from anything agbench writes (raw responses, traces, logs, reports).

API keys are held by the harness (the recording proxy adds them to cloud-bound requests) and
must never reach a file. Redaction is by name (headers and fields such as Authorization or
api_key), by value (the actual keys the harness knows, from the environment) and by shape
(``Bearer ...``, ``sk-...``, key-bearing URL query parameters), so a key that slipped into an
unexpected place (an error message echoing the request, a URL) is still caught.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import Any

REDACTED = "[REDACTED]"

SECRET_FIELD_NAMES = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "api-key",
        "api_key",
        "apikey",
        "x-goog-api-key",
        "openai-api-key",
        "access_token",
        "refresh_token",
        "client_secret",
        "password",
        "secret",
        "cookie",
        "set-cookie",
    }
)

_ENV_SECRET_NAME = re.compile(r"(API_?KEY|_KEY|_TOKEN|_SECRET|PASSWORD)$", re.IGNORECASE)
_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    # Credentials after Bearer/Basic look unlike prose ("basic understanding", "bearer bonds"):
    # a token has a digit or is long; base64 has a capital, digit or "=" after its first letter.
    (
        re.compile(r"\b([Bb]earer)\s+(?=[\w.~+/=-]*\d|[\w.~+/=-]{20})[\w.~+/=-]{8,}"),
        r"\1 " + REDACTED,
    ),
    (re.compile(r"\b([Bb]asic)\s+(?=[A-Za-z0-9+/]+?[A-Z0-9=])[A-Za-z0-9+/]{8,}={0,2}"), r"\1 " + REDACTED),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{12,}"), REDACTED),
    (
        re.compile(r"(?i)([?&](?:api[_-]?key|key|token|access_token|auth|sig|signature)=)[^&#\s\"']+"),
        r"\1" + REDACTED,
    ),
]


def secrets_from_env(environ: dict[str, str] | None = None) -> list[str]:
    """Values of environment variables named like keys (``*_API_KEY``, ``*_TOKEN``, ...)."""
    env = os.environ if environ is None else environ
    return [v for k, v in env.items() if _ENV_SECRET_NAME.search(k) and len(v) >= 8]


class Redactor:
    """Removes known secret values and secret-shaped text from strings and JSON-like data."""

    def __init__(self, secrets: Iterable[str] = (), *, include_env: bool = True) -> None:
        values = {s for s in secrets if s and len(s) >= 4}
        if include_env:
            values.update(secrets_from_env())
        # Longest first, so a key that contains another key is removed whole.
        self._values = sorted(values, key=len, reverse=True)

    def add(self, secret: str) -> None:
        if secret and len(secret) >= 4 and secret not in self._values:
            # A new list, swapped in whole: another thread may be redacting with the old one.
            self._values = sorted([*self._values, secret], key=len, reverse=True)

    def text(self, value: str) -> str:
        for secret in self._values:
            if secret in value:
                value = value.replace(secret, REDACTED)
        for pattern, replacement in _PATTERNS:
            value = pattern.sub(replacement, value)
        return value

    def data(self, value: Any) -> Any:
        """A copy of ``value`` (dicts, lists, strings) with secrets removed."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {
                k: (
                    REDACTED if isinstance(k, str) and k.lower() in SECRET_FIELD_NAMES and v else self.data(v)
                )
                for k, v in value.items()
            }
        if isinstance(value, (list, tuple)):
            return [self.data(v) for v in value]
        return value

    def headers(self, headers: Iterable[tuple[str, str]]) -> dict[str, str]:
        return {k: (REDACTED if k.lower() in SECRET_FIELD_NAMES else self.text(v)) for k, v in headers}


def redact(value: Any, secrets: Iterable[str] = ()) -> Any:
    """One-off redaction of ``value`` with the given secrets and those from the environment."""
    return Redactor(secrets).data(value)
