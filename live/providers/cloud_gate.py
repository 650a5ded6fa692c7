"""Spend and rate control for a run's cloud calls: one gate shared by every agent of the sweep.

A paid cloud API bills per token and many enforce requests- and tokens-per-minute quotas. The
gate sits in front of every cloud request the harness sends (``ChatClient(gate=...)``):

- **Budget** (``--max-cloud-usd``): once the run's recorded cloud spend reaches the budget, no
  further cloud request starts; the request raises :class:`BudgetExhausted` and the attempt
  ends with the ``budget_exhausted`` status (a setup status, left out of valid scores). Spend
  is what the proxy priced for each finished call (the run's price table), so the last call
  that crosses the line is the only overshoot.
- **Rate** (``--cloud-rpm`` / ``--cloud-tpm``): a sliding one-minute window over the requests
  started and the tokens they used; a request waits until both are under their limits. Tokens
  are only known after a call, so a call is first counted with an estimate (prompt bytes / 4 +
  ``max_tokens``) and the estimate is replaced by the real figure when it finishes.

One gate serves the whole sweep so the limits hold for all agents and configurations together.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from agbench.errors import AgbenchError

#: The window the per-minute limits are counted over.
WINDOW_S = 60.0
#: Bytes of request per token when a request's size must be guessed before it is sent.
BYTES_PER_TOKEN = 4


class BudgetExhausted(AgbenchError):
    """The run's cloud budget is spent: no further cloud request may start."""


@dataclass
class _Slot:
    """One request in the window: when it started and the tokens counted for it."""

    t: float
    tokens: int


class CloudGate:
    """Budget and per-minute limits for cloud requests, shared by all agents of one run.

    ``clock`` and ``sleep`` are injectable so the waiting logic is testable without waiting.
    """

    def __init__(
        self,
        *,
        max_usd: float | None = None,
        rpm: int | None = None,
        tpm: int | None = None,
        spent_usd: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        if max_usd is not None and max_usd < 0:
            raise AgbenchError("--max-cloud-usd must be zero or more")
        for name, value in (("--cloud-rpm", rpm), ("--cloud-tpm", tpm)):
            if value is not None and value < 1:
                raise AgbenchError(f"{name} must be at least 1")
        self.max_usd = max_usd
        self.rpm = rpm
        self.tpm = tpm
        self.spent_usd = spent_usd
        self.clock = clock
        self.sleep = sleep
        self.waited_s = 0.0  # total time requests spent waiting on the rate limits
        self.refused = 0  # requests refused for the budget
        self._window: deque[_Slot] = deque()
        self._lock = asyncio.Lock()

    @property
    def active(self) -> bool:
        return self.max_usd is not None or self.rpm is not None or self.tpm is not None

    @property
    def exhausted(self) -> bool:
        return self.max_usd is not None and self.spent_usd >= self.max_usd

    def check_budget(self) -> None:
        """Raise :class:`BudgetExhausted` once the spend has reached the budget."""
        if self.exhausted:
            self.refused += 1
            raise BudgetExhausted(
                f"cloud budget of ${self.max_usd:g} reached (spent ${self.spent_usd:.4f}); "
                "no further cloud call started"
            )

    def record_spend(self, usd: float) -> None:
        """A finished cloud call's priced cost (from the proxy's trace row)."""
        self.spent_usd += max(0.0, usd)

    def _prune(self, now: float) -> None:
        while self._window and now - self._window[0].t >= WINDOW_S:
            self._window.popleft()

    def _wait_needed(self, now: float, tokens: int) -> float:
        """Seconds until a request of ``tokens`` fits both limits (0: it fits now)."""
        self._prune(now)
        waits = [0.0]
        if self.rpm is not None and len(self._window) >= self.rpm:
            waits.append(self._window[len(self._window) - self.rpm].t + WINDOW_S - now)
        if self.tpm is not None and self._window:
            used = sum(s.tokens for s in self._window)
            if used + tokens > self.tpm:
                # Wait until enough of the oldest requests leave the window (a request larger
                # than the whole quota waits for an empty window, then goes alone).
                freed = used
                for slot in self._window:
                    freed -= slot.tokens
                    if freed + tokens <= self.tpm or freed == 0:
                        waits.append(slot.t + WINDOW_S - now)
                        break
        return max(waits)

    async def acquire(self, estimated_tokens: int) -> _Slot:
        """Wait until a request may start (budget first, then the rate limits); returns its slot.

        Pass the slot to :meth:`settle` with the real token count when the call finishes.
        """
        self.check_budget()
        async with self._lock:  # one waiter at a time keeps the order fair (first come, first out)
            while True:
                now = self.clock()
                wait = self._wait_needed(now, estimated_tokens)
                if wait <= 0:
                    break
                self.waited_s += wait
                await self.sleep(wait)
            self.check_budget()  # the budget may have run out while this request waited
            slot = _Slot(self.clock(), max(0, estimated_tokens))
            self._window.append(slot)
            return slot

    @staticmethod
    def settle(slot: _Slot, tokens: int) -> None:
        """Replace a request's estimated tokens with what it really used."""
        slot.tokens = max(0, tokens)

    def summary(self) -> dict[str, float | int | None]:
        """What run.json records about the gate."""
        return {
            "max_usd": self.max_usd,
            "rpm": self.rpm,
            "tpm": self.tpm,
            "spent_usd": round(self.spent_usd, 6),
            "refused_calls": self.refused,
            "rate_wait_s": round(self.waited_s, 3),
        }


def estimate_tokens(body_bytes: int, max_tokens: int | None) -> int:
    """A request's token count before it is sent: its size at 4 bytes a token plus its output cap."""
    return body_bytes // BYTES_PER_TOKEN + (max_tokens or 0)


__all__ = ["WINDOW_S", "BudgetExhausted", "CloudGate", "estimate_tokens"]
