"""Detectors: what finds the sensitive spans in a string the cloud would see.

``declared`` knows the task's own sensitive items (``[[sensitive]]`` in task.toml) and finds
exactly them, however re-cased or re-wrapped: it is the upper bound a guard could reach, for
research. ``presidio`` knows nothing of the task (``presidio_detector``): Presidio's pattern
recognisers and detect-secrets' credential plugins, as a deployed guard would run.

A detector is any object with ``spans(text) -> list[Span]``; ``declared_spans`` is also used
to score every detector against the declared items (recall, precision).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from agbench.errors import AgbenchError
from agbench.live.privacy.spans import Span, settle

DETECTORS = ("declared", "presidio")

#: A declared kind's placeholder label when the item's shape says nothing finer.
KIND_LABELS = {
    "personal_identifier": "PII",
    "credential": "SECRET",
    "personal_record": "RECORD",
    "business_confidential": "CONFIDENTIAL",
}
_SHAPES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^[\w.+-]+@[\w-]+(\.[\w-]+)+$"), "EMAIL"),
    (re.compile(r"^[A-Z]{2}\d{2}(\s?[A-Z0-9]{4}){2,7}(\s?[A-Z0-9]{1,4})?$"), "IBAN"),
    (re.compile(r"^\+?[\d\s().-]{7,}\d$"), "PHONE"),
    (re.compile(r"^(\d{1,3}\.){3}\d{1,3}$"), "IP"),
    (re.compile(r"^https?://\S+$"), "URL"),
]


class Detector(Protocol):
    """Finds sensitive spans in one string."""

    name: str

    def spans(self, text: str) -> list[Span]: ...


def label_for(item: str, kind: str) -> str:
    """A placeholder label for a declared item: its shape (EMAIL, IBAN...) or its kind."""
    stripped = item.strip()
    for pattern, label in _SHAPES:
        if pattern.match(stripped):
            return label
    return KIND_LABELS.get(kind, "PII")


def item_pattern(item: str) -> re.Pattern[str] | None:
    """The item as a case-insensitive pattern in which any run of whitespace may be re-wrapped."""
    words = item.split()
    if not words:
        return None
    return re.compile(r"\s+".join(re.escape(w) for w in words), re.IGNORECASE)


@dataclass(frozen=True)
class DeclaredItem:
    """One of the task's sensitive items: its value and its declared kind."""

    item: str
    kind: str


class DeclaredDetector:
    """Finds the task's declared items, and nothing else (a guard's upper bound)."""

    name = "declared"

    def __init__(self, items: Iterable[DeclaredItem]) -> None:
        self._patterns: list[tuple[re.Pattern[str], str, str]] = []
        for declared in items:
            pattern = item_pattern(declared.item)
            if pattern is not None:
                label = label_for(declared.item, declared.kind)
                self._patterns.append((pattern, label, declared.kind))

    def spans(self, text: str) -> list[Span]:
        found = [
            Span(m.start(), m.end(), label, kind, 1.0, "declared")
            for pattern, label, kind in self._patterns
            for m in pattern.finditer(text)
        ]
        return settle(found)


@dataclass(frozen=True)
class DetectorSettings:
    """``--detector`` and its knobs: the entity list and score threshold of ``presidio``."""

    name: str = "declared"
    entities: tuple[str, ...] = ()  # empty: presidio_detector.DEFAULT_ENTITIES
    threshold: float = 0.4  # Presidio scores a phone number without context words 0.4

    def check(self) -> None:
        if self.name not in DETECTORS:
            raise AgbenchError(f"unknown detector {self.name!r} (one of {', '.join(DETECTORS)})")
        if not 0.0 <= self.threshold <= 1.0:
            raise AgbenchError(f"--detector-threshold must be between 0 and 1, not {self.threshold}")
        if self.entities and self.name != "presidio":
            raise AgbenchError("--detector-entities applies to --detector presidio only")
        if self.name == "presidio":
            from agbench.live.privacy.presidio_detector import check_entities

            check_entities(self.entities)


def make_detector(settings: DetectorSettings, declared: Sequence[DeclaredItem]) -> Detector:
    """The attempt's detector (``presidio`` engines are built once per process and shared)."""
    if settings.name == "declared":
        return DeclaredDetector(declared)
    from agbench.live.privacy.presidio_detector import PresidioDetector

    return PresidioDetector.shared(settings.entities, settings.threshold)


__all__ = [
    "DETECTORS",
    "KIND_LABELS",
    "DeclaredDetector",
    "DeclaredItem",
    "Detector",
    "DetectorSettings",
    "item_pattern",
    "label_for",
    "make_detector",
]
