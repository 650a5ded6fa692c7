"""When a model request is sent again, and how long the client waits first (tenacity).

A chat call is retried only where retrying is safe: an HTTP 429 (the server refused the work)
and a connection that was never made (the request never left this machine). A timeout, a 5xx
or a broken stream is not: the model may have done the work, and the harness decides what a
failed turn means. Between attempts the client backs off exponentially, stretched by a random
fraction (agents that failed together do not all come back together), capped, and never
shorter than the server's Retry-After.

Every attempt is kept: :func:`call_with_retries` gives back the last attempt's result with
``attempts`` listing each one's :class:`AttemptRecord` (start, time, status, error class, the
Retry-After it got and the wait that followed it), which is what the trace rows are built from
(``ChatResult.model_calls``). Cancelling the call cancels it at once, in an attempt or in a
wait: the cancellation is never taken for a failed attempt.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from tenacity import AsyncRetrying, RetryCallState, retry_if_result, stop_after_attempt

from agbench.live.providers.chat_result import AttemptRecord, ChatResult
from agbench.live.providers.errors import ErrorClass


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a model request is sent again (``--retries``)."""

    max_retries: int = 2  # attempts beyond the first
    backoff_s: float = 0.5  # the first wait, doubled after each failure
    max_backoff_s: float = 30.0  # no wait is longer, unless Retry-After asks for more
    jitter: float = 0.25  # each wait is stretched by up to this fraction, at random


def retry_is_safe(result: ChatResult) -> bool:
    """Whether the attempt behind ``result`` may be sent again: a 429, or never sent at all."""
    record = result.attempts[-1]
    return record.error_class == ErrorClass.RATE_LIMITED or not record.sent


def backoff_delay(
    failures: int, base_s: float, cap_s: float, retry_after_s: float | None, jitter: float
) -> float:
    """Seconds to wait after the ``failures``-th failed attempt: exponential backoff stretched
    by a random fraction up to ``jitter``, capped, and never shorter than the server's Retry-After."""
    wait = min(base_s * 2.0 ** (failures - 1), cap_s) * (1.0 + random.uniform(0.0, jitter))
    if retry_after_s is not None:
        wait = max(wait, retry_after_s)
    return min(wait, max(cap_s, retry_after_s or 0.0))


def _failed_result(state: RetryCallState) -> ChatResult:
    assert state.outcome is not None
    assert not state.outcome.failed  # an exception is never retried, so never waited after
    result: ChatResult = state.outcome.result()
    return result


async def call_with_retries(
    attempt: Callable[[], Awaitable[ChatResult]],
    policy: RetryPolicy,
    on_retry: Callable[[AttemptRecord], None] | None = None,
) -> ChatResult:
    """Run ``attempt`` (one HTTP attempt, its result carrying its one record) until it succeeds,
    fails in a way that is not safe to retry, or ``policy`` allows no more retries.

    Returns the last result, its ``attempts`` every attempt's record in order and ``t_start``
    the first one's. ``on_retry`` is told of each failed attempt that is about to be retried,
    its ``backoff_s`` already set.
    """
    records: list[AttemptRecord] = []

    async def recorded() -> ChatResult:
        result = await attempt()
        records.append(result.attempts[-1])
        return result

    def wait(state: RetryCallState) -> float:
        retry_after = _failed_result(state).attempts[-1].retry_after_s
        return backoff_delay(
            state.attempt_number, policy.backoff_s, policy.max_backoff_s, retry_after, policy.jitter
        )

    def before_sleep(state: RetryCallState) -> None:
        record = _failed_result(state).attempts[-1]
        record.backoff_s = state.upcoming_sleep
        if on_retry is not None:
            on_retry(record)

    retrying = AsyncRetrying(
        sleep=asyncio.sleep,
        stop=stop_after_attempt(max(0, policy.max_retries) + 1),
        wait=wait,
        retry=retry_if_result(retry_is_safe),  # an exception (a cancellation) is never retried
        before_sleep=before_sleep,
        retry_error_callback=_failed_result,  # out of retries: the last attempt's own result
    )
    result: ChatResult = await retrying(recorded)
    result.attempts = records
    result.t_start = records[0].t_start
    return result


__all__ = ["RetryPolicy", "backoff_delay", "call_with_retries", "retry_is_safe"]
