"""The guard policy: what happens to a cloud-bound request, and what one attempt's guard saw.

``--privacy-guard`` chooses the policy for every request to a cloud endpoint:

- ``off``: the request crosses as the agent wrote it (the paper's architectures);
- ``redact``: every detected span is replaced by the attempt's stable placeholder
  (``placeholders``), and the answer is restored before the local side reads it;
- ``block``: a request with any detected span is refused; the agent gets an error of class
  ``privacy_blocked`` (its architecture's failure policy decides what follows: a CO or HCL
  lead ends the attempt, an HLL consultation is reported to the local lead, which goes on).

:class:`AttemptGuard` holds one attempt's placeholder map and counters. It also scores the
detector against the task's declared items on every string it inspects: a detected value
that overlaps a declared item is a true positive of that item's kind, any other a false
positive. Counters only leave the guard (``GuardStats.line``); values never do.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from agbench.errors import AgbenchError
from agbench.live.privacy.detectors import DeclaredDetector, DeclaredItem, DetectorSettings, make_detector
from agbench.live.privacy.placeholders import PlaceholderMap, _key
from agbench.live.privacy.rewrite import map_request
from agbench.vocabulary import ErrorClass


class GuardMode(StrEnum):
    OFF = "off"
    REDACT = "redact"
    BLOCK = "block"


#: ``model_calls.error_class`` of a request the guard refused.
BLOCKED_ERROR = ErrorClass.PRIVACY_BLOCKED.value


@dataclass(frozen=True)
class GuardSettings:
    """``--privacy-guard`` and ``--detector`` (with its entity list and threshold)."""

    mode: GuardMode = GuardMode.OFF
    detector: DetectorSettings = field(default_factory=DetectorSettings)

    @classmethod
    def of(
        cls, mode: str, detector: str = "declared", entities: tuple[str, ...] = (), threshold: float = 0.4
    ) -> GuardSettings:
        """Checked settings (one-line AgbenchError naming the bad option)."""
        try:
            guard_mode = GuardMode(mode)
        except ValueError:
            raise AgbenchError(
                f"unknown --privacy-guard {mode!r} (one of {', '.join(m.value for m in GuardMode)})"
            ) from None
        settings = cls(guard_mode, DetectorSettings(detector, tuple(entities), float(threshold)))
        settings.detector.check()
        return settings

    @property
    def active(self) -> bool:
        return self.mode is not GuardMode.OFF

    def public(self) -> dict[str, Any]:
        """What run.json records of the guard."""
        d = self.detector
        return {
            "mode": self.mode.value,
            "detector": d.name,
            "entities": list(d.entities),
            "threshold": d.threshold,
        }


@dataclass
class GuardStats:
    """One attempt's guard counters (no values: kinds, labels and counts only)."""

    calls: int = 0
    blocked_calls: int = 0
    redacted_spans: int = 0  # span occurrences replaced (every call resends the history)
    guard_s: list[float] = field(default_factory=list)  # per call: detection + rewriting
    true_positive: Counter[str] = field(default_factory=Counter)  # declared kind -> distinct values
    false_positive: Counter[str] = field(default_factory=Counter)  # label -> distinct values

    def line(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "blocked_calls": self.blocked_calls,
            "redacted_spans": self.redacted_spans,
            "true_positive_by_kind": dict(sorted(self.true_positive.items())),
            "false_positive_by_label": dict(sorted(self.false_positive.items())),
            "guard_s": [round(s, 7) for s in self.guard_s],
        }


@dataclass
class GuardDecision:
    """What to send upstream (``body``), or why the call is refused (``blocked``)."""

    body: dict[str, Any]
    blocked: str = ""
    spans: int = 0


class AttemptGuard:
    """One attempt's guard: its detector, placeholder map and counters (in memory only)."""

    def __init__(self, settings: GuardSettings, declared: tuple[DeclaredItem, ...]) -> None:
        self.settings = settings
        self.reference_items = declared
        self.detector = make_detector(settings.detector, declared)
        self.reference = DeclaredDetector(declared)  # the declared items, to score the detector
        self.placeholders = PlaceholderMap()
        self.stats = GuardStats()
        self._scored: set[str] = set()
        # Every call resends the history: a string already inspected is not scanned again.
        self._seen: dict[str, list[Any]] = {}

    def __repr__(self) -> str:
        return f"AttemptGuard({self.settings.mode.value}, {self.detector.name})"

    def request(self, body: dict[str, Any]) -> GuardDecision:
        """Inspect (and in ``redact`` mode rewrite) one cloud-bound request body."""
        t0 = time.perf_counter()
        labels: Counter[str] = Counter()
        redacting = self.settings.mode is GuardMode.REDACT

        def inspect(text: str) -> str:
            spans = self._seen.get(text)
            if spans is None:
                spans = self._seen[text] = self.detector.spans(text)
                if spans:
                    self._score(text, spans)
            if not spans:
                return text
            for span in spans:
                labels[span.label] += 1
            if not redacting:
                return text
            out = text
            for span in reversed(spans):
                token = self.placeholders.placeholder(text[span.start : span.end], span.label)
                out = out[: span.start] + token + out[span.end :]
            return out

        rewritten = map_request(body, inspect)
        found = sum(labels.values())
        self.stats.calls += 1
        decision = GuardDecision(rewritten if redacting else body, spans=found)
        if self.settings.mode is GuardMode.BLOCK and found:
            self.stats.blocked_calls += 1
            kinds = ", ".join(f"{n} {label}" for label, n in sorted(labels.items()))
            decision.blocked = (
                f"privacy guard refused a cloud request carrying {found} sensitive span(s): {kinds}"
            )
        elif redacting:
            self.stats.redacted_spans += found
        self.stats.guard_s.append(time.perf_counter() - t0)
        return decision

    def _score(self, text: str, spans: list[Any]) -> None:
        """Count each newly detected value once: declared (by kind) or not (by label)."""
        declared = None
        for span in spans:
            value = _key(text[span.start : span.end])
            if value in self._scored:
                continue
            self._scored.add(value)
            if declared is None:
                declared = self.reference.spans(text)
            hit = next((d for d in declared if d.overlaps(span)), None)
            if hit is not None:
                self.stats.true_positive[hit.kind] += 1
            else:
                self.stats.false_positive[span.label] += 1


__all__ = ["BLOCKED_ERROR", "AttemptGuard", "GuardDecision", "GuardMode", "GuardSettings", "GuardStats"]
