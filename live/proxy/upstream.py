"""A model endpoint behind the proxy, and which headers cross between it and the agent.

The upstream's API key lives here, in the harness process, and is added to each request the
proxy forwards; whatever credential an agent sends is dropped, so a sandboxed program never
holds a key and a key it invents reaches no upstream. Hop-by-hop and framing headers are each
side's own business; of the answer's headers only those a client acts on are relayed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from agbench.attempt import Endpoint
from agbench.config import PriceTable
from agbench.live.providers.openai_compatible import api_base
from agbench.live.proxy.http1 import Http1Response

DROP_REQUEST_HEADERS = frozenset(
    {"host", "content-length", "transfer-encoding", "connection", "keep-alive", "authorization",
     "proxy-authorization", "x-api-key", "api-key", "accept-encoding", "upgrade", "te", "trailer"}
)  # fmt: skip
PASS_RESPONSE_HEADERS = ("content-type", "retry-after", "x-request-id", "openai-processing-ms")


@dataclass
class Upstream:
    """A model endpoint behind the proxy. ``api_key`` stays in the harness process."""

    base_url: str  # e.g. http://127.0.0.1:8080 or https://api.example.com (with or without /v1)
    endpoint: str = Endpoint.LOCAL  # labels trace rows; Endpoint.CLOUD enables exposure checks
    api_key: str | None = field(default=None, repr=False)
    model: str | None = None  # when set, replaces the model name the agent asked for
    max_concurrent: int | None = None  # the harness's own limiter; waiting on it is queue_s
    prices: PriceTable | None = None  # cost per call (cloud)
    timeout_s: float = 600.0

    def __post_init__(self) -> None:
        self.endpoint = Endpoint(self.endpoint).value  # "local" or "cloud", nothing else

    @property
    def api_base(self) -> str:
        """The OpenAI API base (``.../v1``) that request paths are appended to."""
        return api_base(self.base_url)

    @property
    def is_cloud(self) -> bool:
        return self.endpoint == Endpoint.CLOUD

    def request_headers(self, agent_headers: Iterable[tuple[str, str]]) -> dict[str, str]:
        """The agent's headers less hop-by-hop ones and credentials, plus this upstream's key."""
        headers = {k: v for k, v in agent_headers if k.lower() not in DROP_REQUEST_HEADERS}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers


def relayed_headers(response: Http1Response) -> list[tuple[str, str]]:
    """The headers of an upstream answer that are passed on to the agent."""
    relayed: list[tuple[str, str]] = []
    for name in PASS_RESPONSE_HEADERS:
        value = response.header(name)
        if value is not None:
            relayed.append((name, value))
    return relayed
