"""Where the recording proxy calls the guard: one request in, and a refused call's record.

Kept apart from the proxy's relay so the proxy gains three calls and no policy: the guard
decides (``guard``), the proxy forwards or refuses. A cloud-bound body that is not a JSON
object cannot be inspected, so it is refused whatever the mode (the guard fails closed).
"""

from __future__ import annotations

import time

from agbench.live.privacy.guard import BLOCKED_ERROR, AttemptGuard, GuardDecision
from agbench.live.providers.chat_result import AttemptRecord, ChatResult
from agbench.live.proxy.chat_relay import ChatRequest
from agbench.live.proxy.upstream import Upstream

UNREADABLE = "privacy guard refused a cloud request it cannot read (the body is not a JSON object)"


def guard_request(guard: AttemptGuard, chat: ChatRequest) -> GuardDecision:
    """The guard's decision on one cloud-bound chat request."""
    if chat.body is None:
        guard.stats.calls += 1
        guard.stats.blocked_calls += 1
        return GuardDecision({}, blocked=UNREADABLE)
    return guard.request(chat.body)


def blocked_result(upstream: Upstream, decision: GuardDecision, request_id: str) -> ChatResult:
    """The measurement of a refused call: nothing left the device; its class says why."""
    now = time.time()
    result = ChatResult(endpoint=upstream.endpoint, model=upstream.model or "", t_start=now)
    result.status_code = 403
    result.error_class, result.error = BLOCKED_ERROR, decision.blocked[:500]
    result.request_id = request_id
    result.request_body = {"privacy_guard": "blocked: not sent"}  # the cloud saw nothing
    result.attempts = [AttemptRecord(now, 0.0, 403, BLOCKED_ERROR, result.error)]
    return result


__all__ = ["UNREADABLE", "blocked_result", "guard_request"]
