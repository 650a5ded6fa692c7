"""What every part of the grading helpers shares: where things are, the failures, the answer.

The helpers are several stdlib modules that sit side by side in ``/verifier`` (the harness copies
every ``*.py`` of ``tasks/_grading``); verifiers import them through ``agbench_grading``.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

# Where verify.py, answer.txt and these modules sit (``/verifier`` in a sandbox).
VERIFIER_DIR = Path(__file__).resolve().parent
PRISTINE_DIR = Path("/pristine")
PRISTINE_ENV = "AGBENCH_PRISTINE"  # the harness's override for host-side grading
MAX_ANSWER_CHARS = 4000
ANSWER_READ_LIMIT = 200_000  # bytes of answer.txt ever read


class Fail(Exception):
    """The attempt does not meet the task: reward 0 with this message as the reason."""


class NoValue(Fail):
    """A field's text holds no value at all (prose mentioning the key, not an answer)."""


class AmbiguousAnswer(Fail):
    """The final answer offers more than one candidate for a field, or hedges one.

    Its reason starts with ``ambiguous_answer:`` so reports can count these apart."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"ambiguous_answer: {detail}")


def answer() -> str:
    """The agent's final answer (``answer.txt`` next to the verifier); "" when missing. At most
    :data:`ANSWER_READ_LIMIT` bytes are read (``main`` fails longer answers anyway)."""
    try:
        with (VERIFIER_DIR / "answer.txt").open("rb") as fh:
            return fh.read(ANSWER_READ_LIMIT).decode("utf-8", errors="replace")
    except OSError:
        return ""


def clean(s: str) -> str:
    """``s`` in one canonical form: NFKC, one minus sign, plain spaces, no markdown emphasis."""
    s = unicodedata.normalize("NFKC", s)
    s = s.replace("\u2212", "-").replace("\u2013", "-").replace("\u2014", "-")
    s = re.sub(r"[\u00a0\u2009\u202f]", " ", s)
    s = s.replace("**", "").replace("__", "").replace("`", "")
    return s.strip().strip("*").strip()
