"""The realistic detector: Presidio's pattern recognisers and detect-secrets' plugins.

It knows nothing of the task: it is what a deployed guard would run. Two well-kept libraries,
no regexes of our own:

- Presidio (``presidio-analyzer``): its pattern recognisers for e-mail addresses, phone
  numbers (``phonenumbers``), IBANs (with their check digits), credit cards (Luhn), IP
  addresses, URLs, crypto wallets and US social security numbers. The analyzer runs with
  Presidio's ``NoOpNlpEngine``: no spaCy model is loaded or downloaded, so nothing needing
  one is detected: **person names, organisations and places are not detected** (no
  named-entity model installs from the registry by name: spaCy's ``en_core_web_*`` are not on
  PyPI). The e-mail recogniser's domain check (``tldextract``) runs on the library's bundled
  public-suffix snapshot, never fetching the live list, and also accepts the reserved test
  domains (``.example``, ``.test``, ``.invalid``) that the tasks use in place of real ones.
- detect-secrets (Yelp): its credential plugins (API-key shapes, private keys, JWTs,
  ``password = ...`` and other keyword assignments, high-entropy strings), line by line.

Both are imported on first use; when missing, one line names the extra that installs them.
``--detector-entities`` narrows the list (``SECRET`` is detect-secrets); ``--detector-threshold``
drops Presidio results scored below it.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from typing import Any, ClassVar

from agbench.errors import AgbenchError
from agbench.live.privacy.spans import Span, settle

EXTRA = "pip install 'agbench[privacy]' (presidio-analyzer, detect-secrets)"
#: Presidio entity -> placeholder label.
ENTITY_LABELS = {
    "EMAIL_ADDRESS": "EMAIL",
    "PHONE_NUMBER": "PHONE",
    "IBAN_CODE": "IBAN",
    "CREDIT_CARD": "CARD",
    "IP_ADDRESS": "IP",
    "URL": "URL",
    "CRYPTO": "CRYPTO",
    "US_SSN": "SSN",
    "SECRET": "SECRET",  # detect-secrets
}
DEFAULT_ENTITIES = tuple(ENTITY_LABELS)
#: Regions whose numbering plans the phone recogniser tries (the tasks' and the common ones).
PHONE_REGIONS = ("US", "GB", "DE", "FR", "SE", "NO", "DK", "FI", "NL", "ES", "IT", "IE", "CA", "AU", "IN")
RESERVED_SUFFIXES = ("example", "test", "invalid", "localhost")
_LINE = re.compile(r"[^\n]+")
_SCAN_LOCK = threading.Lock()


def check_entities(entities: tuple[str, ...]) -> None:
    bad = [e for e in entities if e not in ENTITY_LABELS]
    if bad:
        raise AgbenchError(
            f"unknown --detector-entities {', '.join(bad)} (known: {', '.join(ENTITY_LABELS)})"
        )


def _missing(exc: ImportError) -> AgbenchError:
    return AgbenchError(f"--detector presidio needs {EXTRA}: {exc}")


def _analyzer(entities: tuple[str, ...]) -> Any:
    """Presidio's AnalyzerEngine with pattern recognisers only and no NLP model."""
    try:
        import tldextract
        from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
        from presidio_analyzer.nlp_engine import NoOpNlpEngine
        from presidio_analyzer.predefined_recognizers import (
            CreditCardRecognizer,
            CryptoRecognizer,
            EmailRecognizer,
            IbanRecognizer,
            IpRecognizer,
            PhoneRecognizer,
            UrlRecognizer,
            UsSsnRecognizer,
        )
    except ImportError as exc:
        raise _missing(exc) from None

    # Its analyzer logs a line per call at INFO ("Skipping context extraction"): not ours to print.
    logging.getLogger("presidio-analyzer").setLevel(logging.WARNING)
    offline = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None, extra_suffixes=RESERVED_SUFFIXES)

    class OfflineEmailRecognizer(EmailRecognizer):
        """Presidio's e-mail recogniser with its domain check on the bundled suffix list."""

        def validate_result(self, pattern_text: str) -> bool:
            return bool(offline(pattern_text).fqdn)

    recognizers: dict[str, Callable[[], Any]] = {
        "EMAIL_ADDRESS": lambda: OfflineEmailRecognizer(),
        "PHONE_NUMBER": lambda: PhoneRecognizer(supported_regions=PHONE_REGIONS),
        "IBAN_CODE": IbanRecognizer,
        "CREDIT_CARD": CreditCardRecognizer,
        "IP_ADDRESS": IpRecognizer,
        "URL": UrlRecognizer,
        "CRYPTO": CryptoRecognizer,
        "US_SSN": UsSsnRecognizer,
    }
    registry = RecognizerRegistry(supported_languages=["en"])
    for entity in entities:
        if entity in recognizers:
            registry.add_recognizer(recognizers[entity]())
    nlp = NoOpNlpEngine(models=[{"lang_code": "en", "model_name": "none"}])
    return AnalyzerEngine(registry=registry, nlp_engine=nlp, supported_languages=["en"])


def _secret_scanner() -> Any:
    """detect-secrets' line scanner as its file scan runs it, with its default plugins.

    Its ad-hoc ``scan_line`` searches eagerly (every word is a high-entropy candidate), which is
    meant for a human checking one string; a file's lines go through the plugins and filters
    of ``_process_line_based_plugins``, which is what a text sent to the cloud resembles."""
    try:
        from detect_secrets.core.scan import _process_line_based_plugins
        from detect_secrets.settings import default_settings
    except ImportError as exc:
        raise _missing(exc) from None
    return _process_line_based_plugins, default_settings


class PresidioDetector:
    """Presidio pattern recognisers plus detect-secrets, over one string at a time."""

    name = "presidio"
    _shared: ClassVar[dict[tuple[tuple[str, ...], float], PresidioDetector]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, entities: tuple[str, ...] = (), threshold: float = 0.4) -> None:
        self.entities = tuple(entities) or DEFAULT_ENTITIES
        check_entities(self.entities)
        self.threshold = threshold
        self._presidio = [e for e in self.entities if e != "SECRET"]
        self._analyzer = _analyzer(self.entities) if self._presidio else None
        self._scan = _secret_scanner() if "SECRET" in self.entities else None

    @classmethod
    def shared(cls, entities: tuple[str, ...], threshold: float) -> PresidioDetector:
        """One detector per settings in a process: building the engines takes a second."""
        key = (tuple(entities) or DEFAULT_ENTITIES, threshold)
        with cls._lock:
            if key not in cls._shared:
                cls._shared[key] = cls(*key)
            return cls._shared[key]

    def spans(self, text: str) -> list[Span]:
        found: list[Span] = []
        if self._analyzer is not None and text.strip():
            for r in self._analyzer.analyze(text=text, entities=self._presidio, language="en"):
                if r.score >= self.threshold:
                    label = ENTITY_LABELS.get(r.entity_type, r.entity_type)
                    found.append(Span(r.start, r.end, label, r.entity_type, float(r.score), "presidio"))
        if self._scan is not None:
            found.extend(self._secrets(text))
        return settle(found)

    def _secrets(self, text: str) -> list[Span]:
        assert self._scan is not None
        scan_lines, default_settings = self._scan
        lines = list(_LINE.finditer(text))
        if not lines:
            return []
        spans: list[Span] = []
        with _SCAN_LOCK, default_settings():  # detect-secrets' settings are process-global
            numbered = [(n, m.group(0)) for n, m in enumerate(lines, start=1)]
            for secret in scan_lines(numbered, "cloud-request"):
                line = lines[secret.line_number - 1]
                value = secret.secret_value or ""
                at = line.group(0).find(value) if value else -1
                if at >= 0:
                    start = line.start() + at
                    spans.append(Span(start, start + len(value), "SECRET", "SECRET", 1.0, secret.type))
        return spans


__all__ = [
    "DEFAULT_ENTITIES",
    "ENTITY_LABELS",
    "EXTRA",
    "PHONE_REGIONS",
    "PresidioDetector",
    "check_entities",
]
