"""A detected sensitive span of text, and how overlapping detections are settled.

Every detector (the task's declared items, Presidio's pattern recognisers, detect-secrets)
answers with :class:`Span` objects over one string; the rewriter replaces them right to left,
so overlapping spans must first be settled: the longer span wins (an e-mail address inside a
URL is redacted as the URL), then the higher score, then the earlier start.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    """``text[start:end]`` is sensitive: its ``label`` names the placeholder (``EMAIL``...).

    ``kind`` is the declared sensitive kind when the detector knows it (the ``declared``
    detector), else the detector's entity type; ``source`` names the recogniser.
    """

    start: int
    end: int
    label: str
    kind: str = ""
    score: float = 1.0
    source: str = ""

    @property
    def length(self) -> int:
        return self.end - self.start

    def overlaps(self, other: Span) -> bool:
        return self.start < other.end and other.start < self.end


def settle(spans: Iterable[Span]) -> list[Span]:
    """Non-overlapping spans in text order: longer, then higher-scored, then earlier wins."""
    ranked = sorted((s for s in spans if s.end > s.start), key=lambda s: (-s.length, -s.score, s.start))
    kept: list[Span] = []
    for span in ranked:
        if not any(span.overlaps(k) for k in kept):
            kept.append(span)
    return sorted(kept, key=lambda s: s.start)


__all__ = ["Span", "settle"]
