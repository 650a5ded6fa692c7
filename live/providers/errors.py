"""How a failed model request is classified (the ``error_class`` of a ``ModelCall``).

The classes separate what is the model's or the configuration's fault (``context_limit``:
the prompt or the shared KV pool did not fit) from infrastructure (``connection``,
``timeout``, ``server_error``) and from protocol trouble (``bad_response``), because the
statuses and the simulator treat them differently. The mapping follows what llama-server was
measured to answer under pressure (docs/design.md). The classes themselves are the core's
:class:`agbench.attempt.ErrorClass` (the simulator classifies with the same names).
"""

from __future__ import annotations

from typing import Any

from agbench.attempt import ErrorClass as ErrorClass  # re-exported: the providers classify with it

# Retrying these cannot change the answer's meaning: the request either never reached the
# model (connection refused) or the server asked us to come back later.
RETRYABLE: frozenset[ErrorClass] = frozenset({ErrorClass.RATE_LIMITED})

_CONTEXT_MARKERS = (
    "exceed_context_size_error",
    "context size has been exceeded",
    "exceeds the available context size",
    "context_length_exceeded",
    "maximum context length",
    "context length",
    "too many tokens",
)


_GATEWAY_CLASSES = frozenset({ErrorClass.CONNECTION, ErrorClass.TIMEOUT})


class ModelRequestError(Exception):
    """Raised by ``ChatResult.raise_for_error()``: a model request that ended in an error class."""

    def __init__(self, error_class: ErrorClass, message: str, status_code: int = 0) -> None:
        super().__init__(f"{error_class.value}: {message}")
        self.error_class = error_class
        self.message = message
        self.status_code = status_code


def error_text(body: Any) -> str:
    """The human part of an error body (``{"error": {"message": ..}}``, a string, or raw text)."""
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict):
            parts = [str(err.get(k)) for k in ("type", "code", "message") if err.get(k)]
            return " ".join(parts) or str(err)
        return str(err)
    return str(body)


def is_context_error(text: str) -> bool:
    lowered = text.lower()
    return any(marker in lowered for marker in _CONTEXT_MARKERS)


def classify_http_error(status_code: int, body: Any) -> ErrorClass:
    """Classify a non-200 answer: 400 exceed_context_size_error and 500 "Context size has been
    exceeded" are context limits; 429 is rate limiting; other 5xx are server errors; other 4xx
    are the request's fault and counted as bad_response (the protocol broke down)."""
    text = error_text(body)
    err = body.get("error") if isinstance(body, dict) else None
    if status_code in (502, 504) and isinstance(err, dict) and err.get("type") in _GATEWAY_CLASSES:
        # The recording proxy answers 502/504 with the class it saw upstream.
        return ErrorClass(err["type"])
    if status_code == 403 and isinstance(err, dict) and err.get("type") == ErrorClass.PRIVACY_BLOCKED:
        return ErrorClass.PRIVACY_BLOCKED  # the recording proxy's privacy guard refused the request
    if is_context_error(text):
        return ErrorClass.CONTEXT_LIMIT
    if status_code == 429:
        return ErrorClass.RATE_LIMITED
    if status_code in (408, 504):
        return ErrorClass.TIMEOUT
    if status_code >= 500:
        return ErrorClass.SERVER_ERROR
    return ErrorClass.BAD_RESPONSE


def classify_stream_error(body: Any) -> ErrorClass:
    """A ``data: {"error": ...}`` event inside an HTTP 200 stream (llama-server sends one when
    the unified KV pool runs out mid-request)."""
    return ErrorClass.CONTEXT_LIMIT if is_context_error(error_text(body)) else ErrorClass.SERVER_ERROR


def parse_retry_after(value: str | None, cap_s: float = 60.0) -> float | None:
    """Seconds from a Retry-After header (delta seconds or an HTTP date), capped."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        from email.utils import parsedate_to_datetime
        from time import time

        try:
            seconds = parsedate_to_datetime(value).timestamp() - time()
        except (TypeError, ValueError):
            return None
    return max(0.0, min(seconds, cap_s))
