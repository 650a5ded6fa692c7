r"""The closed vocabularies of the trace tables: who produced a row, where a call went, what a
message was, and how a failed request is classified.

They are :class:`~enum.StrEnum`\ s, so a record field typed with one holds a plain string on
disk (Arrow dictionary-encoded string columns) and compares equal to its value; the tables in
docs/vocabulary.md are generated from them (``python -m agbench.vocabulary``).
"""

from __future__ import annotations

from enum import StrEnum


class AgentLabel(StrEnum):
    """Which agent of an attempt produced a row.

    ``LOCAL`` leads LO and HLL; ``CLOUD`` leads CO and HCL and is also the consulted cloud model
    of HLL (there is no other cloud agent in HLL, so the label is unambiguous per architecture,
    and it is what live runs and the committed reference data record); ``LOCAL_SUB`` is the
    local sub-agent an HCL delegation runs. ``HARNESS`` marks rows the harness itself produces
    (the verifier, the judge).
    """

    LOCAL = "local"
    CLOUD = "cloud"
    LOCAL_SUB = "local-sub"
    HARNESS = "harness"

    @property
    def endpoint(self) -> Endpoint:
        return Endpoint.CLOUD if self is AgentLabel.CLOUD else Endpoint.LOCAL


class Endpoint(StrEnum):
    """Where a model call went (``model_calls.endpoint``)."""

    LOCAL = "local"
    CLOUD = "cloud"


class MessageKind(StrEnum):
    """An inter-agent message (``messages.kind``): an HCL delegation or an HLL consultation."""

    DELEGATE = "delegate"
    CONSULT = "consult"


class ErrorClass(StrEnum):
    """How a failed model request is classified (``model_calls.error_class``).

    ``context_limit`` (the prompt or the shared KV pool did not fit) is the model's or the
    configuration's fault; ``connection``, ``timeout`` and ``server_error`` are infrastructure;
    ``bad_response`` is protocol trouble; ``privacy_blocked`` is a cloud request the privacy
    guard refused (``--privacy-guard block``). Statuses and the simulator treat them differently.
    """

    NONE = ""
    CONTEXT_LIMIT = "context_limit"
    RATE_LIMITED = "rate_limited"
    SERVER_ERROR = "server_error"
    TIMEOUT = "timeout"
    CONNECTION = "connection"
    BAD_RESPONSE = "bad_response"
    PRIVACY_BLOCKED = "privacy_blocked"


__all__ = ["AgentLabel", "Endpoint", "ErrorClass", "MessageKind"]
