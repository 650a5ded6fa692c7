"""What the proxy hands the harness for each chat request it relayed: a :class:`CallRecord`.

The record is built before the agent can act on the answer (see ``server``), and it is the
only way proxied calls reach the trace: ``model_calls()`` gives the ``model_calls`` rows
(identity from the attempt's :class:`~agbench.attempt.AttemptKey`, measurement from the
:class:`ChatResult`), ``exposures`` the new ``exposures`` rows.
"""

from __future__ import annotations

from dataclasses import dataclass

from agbench.attempt import AttemptKey
from agbench.live.providers.chat_result import ChatResult
from agbench.records import Exposure, ModelCall


@dataclass
class CallRecord:
    """One proxied chat call: its measurement, its attribution and any new exposures."""

    call_id: str
    upstream: str  # the upstream's name in the route
    endpoint: str  # agbench.attempt.Endpoint value of that upstream
    agent: str  # the agent label in the route (the upstream's name when the route has none)
    token: str  # the attempt's proxy token
    key: AttemptKey
    result: ChatResult
    exposures: list[Exposure]
    cost_usd: float = 0.0
    retry: int = 0  # earlier requests of this attempt with the same X-Request-ID (client retries)

    def model_calls(self) -> list[ModelCall]:
        rows = self.result.model_calls(
            self.key, agent=self.agent, call_id=self.call_id, cost_usd=self.cost_usd
        )
        rows[-1].retry += self.retry
        return rows
