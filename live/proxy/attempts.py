"""Which task attempt a proxied request belongs to, and what that attempt has exposed so far.

The route an agent is given carries an unguessable token instead of the attempt's identity,
so nothing an agent (or a program in its sandbox) sends can attribute a request to another
attempt. The registry maps tokens to :class:`AttemptContext` (the core's
:class:`~agbench.attempt.AttemptKey` plus the attempt's sensitive items) and keeps, per
attempt, the state that outlives one request: which sensitive items have already reached the
cloud (each is reported once, when first seen) and how many times each ``X-Request-ID`` was
sent (a client retry resends it, and its rows are numbered as the client numbers them).
With a privacy guard (``live/privacy``), each attempt also has its :class:`AttemptGuard`
(placeholder map and counters, in memory only) and a second tracker of what its cloud-bound
requests carried *before* the guard (the exposure the guard prevented).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from agbench.attempt import AttemptKey
from agbench.live.exposure import ExposureTracker
from agbench.live.privacy.detectors import DeclaredItem
from agbench.live.privacy.guard import AttemptGuard, GuardSettings
from agbench.records import Exposure


@dataclass(frozen=True)
class AttemptContext:
    """Who a request belongs to (``key``) and what it must not send to the cloud."""

    key: AttemptKey
    sensitive_items: tuple[str, ...] = ()
    guard: AttemptGuard | None = None  # the privacy guard of its cloud-bound requests


class AttemptRegistry:
    """The attempts a proxy currently serves, by token."""

    def __init__(self, guard: GuardSettings | None = None) -> None:
        self.guard = guard if guard is not None and guard.active else None
        self._contexts: dict[str, AttemptContext] = {}
        self._trackers: dict[str, ExposureTracker] = {}
        self._unguarded: dict[str, ExposureTracker] = {}  # what the requests held before the guard
        self._request_counts: dict[str, dict[str, int]] = {}  # token -> X-Request-ID -> requests

    def register(
        self, key: AttemptKey, sensitive_items: tuple[str, ...] = (), sensitive_kinds: tuple[str, ...] = ()
    ) -> str:
        """Make an attempt known; returns its token (URL-safe, never containing ``/``).

        ``sensitive_kinds`` (one per item) score the guard's detector per declared kind."""
        token = secrets.token_urlsafe(12)
        guard = None
        if self.guard is not None:
            kinds = tuple(sensitive_kinds) + ("",) * (len(sensitive_items) - len(sensitive_kinds))
            declared = tuple(DeclaredItem(i, k) for i, k in zip(sensitive_items, kinds, strict=False))
            guard = AttemptGuard(self.guard, declared)
            self._unguarded[token] = ExposureTracker(list(sensitive_items))
        self._contexts[token] = AttemptContext(key, tuple(sensitive_items), guard)
        self._trackers[token] = ExposureTracker(list(sensitive_items))
        return token

    def unregister(self, token: str) -> None:
        self._contexts.pop(token, None)  # the guard's placeholder map goes with it
        self._trackers.pop(token, None)
        self._unguarded.pop(token, None)
        self._request_counts.pop(token, None)

    def observe_unguarded(self, token: str, payload: Any, t: float) -> None:
        """A cloud-bound request as the agent wrote it, before the guard rewrote or refused it."""
        tracker = self._unguarded.get(token)
        if tracker is not None:
            tracker.observe(payload, t)

    def guard_report(self, token: str) -> dict[str, Any] | None:
        """The attempt's guard counters, and which declared items (by index) reached the cloud
        without the guard and with it; None without a guard. No value is in it."""
        context = self._contexts.get(token)
        if context is None or context.guard is None:
            return None
        items = list(context.sensitive_items)
        unguarded = self._unguarded.get(token)
        guarded = self._trackers.get(token)
        return {
            **context.guard.settings.public(),
            **context.guard.stats.line(),
            "kinds": [d.kind for d in context.guard.reference_items],
            "unguarded_items": [i for i, item in enumerate(items) if unguarded and item in unguarded.seen],
            "exposed_items": [i for i, item in enumerate(items) if guarded and item in guarded.seen],
        }

    def get(self, token: str) -> AttemptContext | None:
        return self._contexts.get(token)

    def exposures_seen(self, token: str) -> dict[str, tuple[float, str]]:
        """item -> (first time, where) for an attempt so far; empty for an unknown token."""
        tracker = self._trackers.get(token)
        return dict(tracker.seen) if tracker else {}

    def new_exposures(self, token: str, payload: Any, t: float) -> list[Exposure]:
        """``exposures`` rows for the attempt's items first seen in ``payload`` (a cloud-bound
        request body, parsed or as text) at time ``t``."""
        context = self._contexts.get(token)
        tracker = self._trackers.get(token)
        if context is None or tracker is None:
            return []
        ids = context.key.ids()
        return [
            Exposure(**ids, item=item, t_first=t, where=where) for item, where in tracker.observe(payload, t)
        ]

    def retry_number(self, token: str, request_id: str) -> int:
        """How many requests of this attempt carried ``request_id`` before this one."""
        sent_before = self._request_counts.setdefault(token, {})
        retry = sent_before.get(request_id, 0)
        sent_before[request_id] = retry + 1
        return retry
