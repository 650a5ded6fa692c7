"""What a run adds to every agent request: sampling settings and per-endpoint token caps.

``--temperature``, ``--top-p``, ``--seed`` (as the request's ``seed``) and
``--reasoning-effort`` go into the body of every agent request when given (an endpoint that
does not know a field ignores it or answers an error the trace keeps). ``--local-max-tokens``
and ``--cloud-max-tokens`` are per-endpoint caps: on that endpoint they replace ``--max-tokens``
for the model agent, and bound a replayed turn's forced output length. The judge's requests
are not shaped: it has its own fixed settings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agbench.attempt import Endpoint
from agbench.errors import AgbenchError

if TYPE_CHECKING:
    from agbench.live.agents.base import ChatBackend
    from agbench.live.providers import ChatResult
    from agbench.live.runner.options import SweepOptions

PROVIDERS = ("openai-compatible", "mock")
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high")


def validate_request_settings(options: SweepOptions) -> None:
    """One-line errors for provider, cap, sampling and repeat options that cannot work."""
    if options.provider is not None and options.provider not in PROVIDERS:
        raise AgbenchError(f"unknown provider {options.provider!r} (one of {', '.join(PROVIDERS)})")
    if options.provider == "openai-compatible" and not options.local_url:
        raise AgbenchError("--provider openai-compatible needs --base-url (or --local-url)")
    if options.provider == "mock" and (options.local_url or options.cloud_url):
        raise AgbenchError("--provider mock answers offline: give no --base-url/--local-url/--cloud-url")
    if options.provider == "mock" and options.agent != "model":
        raise AgbenchError("--provider mock is a model: it needs --agent model")
    if not 0.0 <= options.mock_wrong_rate <= 1.0:
        raise AgbenchError("--mock-wrong-rate must be between 0 and 1")
    for flag, value in (
        ("--local-max-tokens", options.local_max_tokens),
        ("--cloud-max-tokens", options.cloud_max_tokens),
    ):
        if value is not None and value < 1:
            raise AgbenchError(f"{flag} must be at least 1")
    if options.temperature is not None and not 0.0 <= options.temperature <= 2.0:
        raise AgbenchError("--temperature must be between 0 and 2")
    if options.top_p is not None and not 0.0 < options.top_p <= 1.0:
        raise AgbenchError("--top-p must be in (0, 1]")
    if options.reasoning_effort is not None and options.reasoning_effort not in REASONING_EFFORTS:
        raise AgbenchError(
            f"--reasoning-effort must be one of {', '.join(REASONING_EFFORTS)}, not {options.reasoning_effort!r}"
        )
    if options.repeat < 1:
        raise AgbenchError("--repeat must be at least 1")


def request_extras(options: SweepOptions) -> dict[str, Any]:
    """The body fields every agent request carries (only those given)."""
    extras: dict[str, Any] = {}
    if options.temperature is not None:
        extras["temperature"] = options.temperature
    if options.top_p is not None:
        extras["top_p"] = options.top_p
    if options.request_seed is not None:
        extras["seed"] = options.request_seed
    if options.reasoning_effort is not None:
        extras["reasoning_effort"] = options.reasoning_effort
    return extras


def endpoint_cap(options: SweepOptions, endpoint: Endpoint) -> int | None:
    """The endpoint's own ``max_tokens`` (``--local-max-tokens`` / ``--cloud-max-tokens``)."""
    cap: int | None = (
        options.local_max_tokens if Endpoint(endpoint) is Endpoint.LOCAL else options.cloud_max_tokens
    )
    return cap


class ShapedBackend:
    """A chat backend whose requests carry the run's sampling settings and endpoint cap.

    ``replace``: the cap replaces the caller's ``max_tokens`` (the model agent, whose value is
    a budget); otherwise it only bounds it (a replayed turn forces its recorded length).
    """

    def __init__(
        self, backend: ChatBackend, extras: dict[str, Any], cap: int | None, *, replace: bool
    ) -> None:
        self.backend = backend
        self.extras = extras
        self.cap = cap
        self.replace = replace

    def max_tokens(self, requested: int | None) -> int | None:
        if self.cap is None:
            return requested
        if self.replace or requested is None:
            return self.cap
        return min(requested, self.cap)

    async def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        max_tokens: int | None = None,
        extra_body: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> ChatResult:
        body = {**self.extras, **(extra_body or {})}  # the caller's own fields win
        return await self.backend.chat(
            messages,
            tools=tools,
            max_tokens=self.max_tokens(max_tokens),
            extra_body=body or None,
            headers=headers,
        )


def shaped(backend: ChatBackend, options: SweepOptions, endpoint: Endpoint) -> ChatBackend:
    """``backend`` itself when the run sets nothing, else wrapped in a :class:`ShapedBackend`."""
    extras, cap = request_extras(options), endpoint_cap(options, endpoint)
    if not extras and cap is None:
        return backend
    wrapped: ChatBackend = ShapedBackend(backend, extras, cap, replace=options.agent == "model")
    return wrapped


__all__ = [
    "PROVIDERS",
    "REASONING_EFFORTS",
    "ShapedBackend",
    "endpoint_cap",
    "request_extras",
    "shaped",
    "validate_request_settings",
]
