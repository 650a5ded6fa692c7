"""What one chat call produced, as the client hands it to the harness: the answer, its
timings, every HTTP attempt, and the one place its ``model_calls`` rows are built.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

from agbench.attempt import AgentLabel, AttemptKey, Endpoint
from agbench.live.providers.errors import ErrorClass, ModelRequestError
from agbench.records import ModelCall


@dataclass
class AttemptRecord:
    """One HTTP attempt of a chat call (a retry is another attempt)."""

    t_start: float
    total_s: float = 0.0
    status_code: int = 0
    error_class: str = ""
    error: str = ""
    retry_after_s: float | None = None
    backoff_s: float = 0.0  # waited after this attempt before the next one
    sent: bool = True  # False: no connection was made, so the request never left this machine


@dataclass
class GapSummary:
    """Inter-token gaps of one streamed answer (seconds between content chunks)."""

    count: int = 0
    mean_s: float | None = None
    p50_s: float | None = None
    p95_s: float | None = None
    max_s: float | None = None

    @classmethod
    def of(cls, gaps: list[float]) -> GapSummary:
        if not gaps:
            return cls()
        ordered = sorted(gaps)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * (len(ordered) - 1) + 0.5))]
        return cls(len(gaps), statistics.fmean(gaps), statistics.median(ordered), p95, ordered[-1])


@dataclass
class ChatResult:
    """What one chat call produced and how long each part took (the final attempt's view)."""

    endpoint: str  # an Endpoint ("local" | "cloud"), or "mock" for the mock provider
    model: str
    t_start: float  # epoch seconds when the first attempt was sent (after any queueing)
    content: str = ""
    reasoning_content: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)  # native, as the server sent them
    finish_reason: str = ""
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    queue_s: float = 0.0
    ttft_s: float | None = None
    total_s: float = 0.0  # the final attempt, send to last byte
    output_tok_s: float | None = None
    gaps: GapSummary = field(default_factory=GapSummary)
    prompt_ms: float | None = None
    predicted_ms: float | None = None
    slot_id: int | None = None
    error_class: str = ""
    error: str = ""
    status_code: int = 0
    attempts: list[AttemptRecord] = field(default_factory=list)
    request_id: str = ""
    response_id: str = ""
    request_body: dict[str, Any] = field(default_factory=dict)
    response_body: dict[str, Any] = field(default_factory=dict)  # assembled, non-streaming shape
    raw_response: str = ""  # the SSE text as received (may be cut to a size limit)

    @property
    def ok(self) -> bool:
        return not self.error_class

    def raise_for_error(self) -> ChatResult:
        if self.error_class:
            raise ModelRequestError(ErrorClass(self.error_class), self.error, self.status_code)
        return self

    def assistant_message(self) -> dict[str, Any]:
        """The answer as a message to append to the conversation."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = self.tool_calls
        return message

    def model_calls(
        self, key: AttemptKey, *, agent: str, call_id: str, cost_usd: float = 0.0
    ) -> list[ModelCall]:
        """Trace rows for this call of attempt ``key``: one per HTTP attempt (``retry`` = 0, 1, ...).

        Earlier attempts carry only their timing and error; the last carries tokens and cost.
        This is the one place a ``ModelCall`` is built from a client result.
        """
        endpoint = Endpoint.LOCAL if self.endpoint == "mock" else Endpoint(self.endpoint)
        ids = key.ids()
        rows: list[ModelCall] = []
        attempts = self.attempts or [
            AttemptRecord(self.t_start, self.total_s, self.status_code, self.error_class)
        ]
        for i, a in enumerate(attempts[:-1]):
            rows.append(
                ModelCall(
                    **ids,
                    agent=AgentLabel(agent),
                    endpoint=endpoint,
                    request_id=self.request_id,
                    call_id=f"{call_id}.r{i}",
                    t_start=a.t_start,
                    queue_s=self.queue_s if i == 0 else 0.0,
                    total_s=a.total_s,
                    error_class=ErrorClass(a.error_class),
                    status_code=a.status_code,
                    retry=i,
                )
            )
        last = attempts[-1]
        rows.append(
            ModelCall(
                **ids,
                agent=AgentLabel(agent),
                endpoint=endpoint,
                request_id=self.request_id,
                call_id=call_id,
                t_start=last.t_start,
                queue_s=self.queue_s if len(attempts) == 1 else 0.0,
                ttft_s=self.ttft_s,
                total_s=self.total_s,
                prompt_tokens=self.prompt_tokens,
                cached_tokens=self.cached_tokens,
                completion_tokens=self.completion_tokens,
                output_tok_s=self.output_tok_s,
                prompt_ms=self.prompt_ms,
                predicted_ms=self.predicted_ms,
                finish_reason=self.finish_reason,
                error_class=ErrorClass(self.error_class),
                status_code=self.status_code,
                retry=len(attempts) - 1,
                response_id=self.response_id,
                cost_usd=cost_usd,
                slot_id=self.slot_id,
            )
        )
        return rows


__all__ = ["AttemptRecord", "ChatResult", "GapSummary"]
