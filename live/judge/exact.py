"""The ``exact`` grader's notion of "the same answer": equal after the differences that never
carry meaning are removed (case, surrounding whitespace and quotes, inner runs of spaces, a
final full stop, a leading ``answer:`` label), and, for multiple choice, the same option
letter however it is dressed (``B``, ``(b)``, ``b)``, ``Option B``, ``B. Paris``).
"""

from __future__ import annotations

import re
import unicodedata

_LABEL = re.compile(r"^(?:final\s+)?answer\s*[:=-]\s*", re.I)
_CHOICE = re.compile(r"^\s*(?:option\s+|choice\s+)?[(\[]?([A-Za-z])[)\].:]?(?:\s+.*)?$", re.S)


def normalize_text(text: str) -> str:
    """Casefolded, NFKC, single-spaced, unquoted, without a trailing full stop or label."""
    out = unicodedata.normalize("NFKC", text).strip()
    out = _LABEL.sub("", out)
    out = out.strip().strip("\"'`“”‘’").strip()
    out = re.sub(r"\s+", " ", out).casefold()
    return out[:-1].rstrip() if out.endswith(".") else out


def choice_letter(text: str) -> str | None:
    """The option letter an answer picks (``None`` when it does not read as one)."""
    match = _CHOICE.match(_LABEL.sub("", text.strip()))
    return match.group(1).upper() if match else None


def exact_match(answer: str, expected: str | list[str], *, choices: bool = False) -> bool:
    """True when ``answer`` equals ``expected`` (or any of a list of accepted answers)."""
    accepted = [expected] if isinstance(expected, str) else list(expected)
    if choices:
        letter = choice_letter(answer)
        return letter is not None and any(letter == choice_letter(e) for e in accepted)
    got = normalize_text(answer)
    return any(got == normalize_text(e) for e in accepted)


__all__ = ["choice_letter", "exact_match", "normalize_text"]
