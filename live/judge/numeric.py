"""Numbers as people write them, read into one value and one base unit, for the ``numeric``
grader: ``12.5%``, ``$1,234.50``, ``€ 3.2k``, ``1.5M``, ``250 ms``, ``2 GB``, ``(42)``.

A percentage is a fraction (``12.5%`` is 0.125, and matches an expected 0.125 or 12.5%); a
currency symbol or code is dropped (the task fixes the currency); thousands separators go;
``k``/``M``/``B`` multiply; time and size units convert to seconds and bytes (decimal and
binary prefixes both). Two values match within a relative or an absolute tolerance, and only
when their kinds agree (a time never equals a size).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

_CURRENCY = re.compile(r"(?i)(?:[$€£¥₹]|\b(?:usd|eur|gbp|chf|jpy|sek|nok|dkk)\b)")
_TIME = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "sec": 1.0, "secs": 1.0, "second": 1.0,
         "seconds": 1.0, "min": 60.0, "mins": 60.0, "minute": 60.0, "minutes": 60.0, "h": 3600.0,
         "hr": 3600.0, "hrs": 3600.0, "hour": 3600.0, "hours": 3600.0}  # fmt: skip
_SIZE = {"b": 1.0, "byte": 1.0, "bytes": 1.0, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12, "kib": 2**10,
         "mib": 2**20, "gib": 2**30, "tib": 2**40}  # fmt: skip
_NUMBER = re.compile(
    r"(?P<neg>[-−–])?\s*(?P<num>(?:\d{1,3}(?:[,\u202f\u00a0 ']\d{3})+|\d+)(?:\.\d+)?|\.\d+)"
    r"(?:[eE](?P<exp>[-+]?\d+))?\s*(?P<unit>%|[A-Za-zµ]+)?"
)


class NumberFormatError(ValueError):
    """Text that holds no number this module can read."""


@dataclass(frozen=True)
class Quantity:
    """A value in its base unit and the kind of that unit: number, fraction, time or size."""

    value: float
    kind: str = "number"  # number | fraction | time | size


def parse_quantity(text: str, *, size_unit_b_means_billion: bool = False) -> Quantity:
    """The first number in ``text`` with its unit applied (``NumberFormatError`` if none).

    A bare ``B`` after a number is bytes unless ``size_unit_b_means_billion`` (money: ``$3B``);
    a currency symbol anywhere in the text makes ``B`` mean billion.
    """
    cleaned = text.strip()
    money = bool(_CURRENCY.search(cleaned))
    cleaned = _CURRENCY.sub(" ", cleaned)
    negative_parens = bool(re.fullmatch(r"\s*\(\s*[\d.,\s]+\s*\)\s*", cleaned))
    match = _NUMBER.search(cleaned)
    if match is None:
        raise NumberFormatError(f"no number in {text!r}")
    digits = re.sub(r"[,\u202f\u00a0 ']", "", match["num"])
    value = float(digits) * (10 ** int(match["exp"]) if match["exp"] else 1.0)
    if match["neg"] or negative_parens:
        value = -value
    unit = (match["unit"] or "").strip()
    low = unit.lower()
    if unit == "%":
        return Quantity(value / 100.0, "fraction")
    if low in ("bn", "billion") or (low == "b" and (money or size_unit_b_means_billion)):
        return Quantity(value * 1e9)
    if unit == "M" or low in ("mn", "million") or (unit == "m" and money):
        return Quantity(value * 1e6)
    if low in ("k", "thousand"):
        return Quantity(value * 1e3)
    if low in _TIME:
        return Quantity(value * _TIME[low], "time")
    if low in _SIZE:
        return Quantity(value * _SIZE[low], "size")
    if unit == "m":  # minutes when nothing says money ("90 m" in a time answer)
        return Quantity(value * 60.0, "time")
    return Quantity(value)


def quantities_match(
    answer: Quantity, expected: Quantity, *, rel_tol: float = 1e-6, abs_tol: float = 1e-9
) -> bool:
    """Equal within tolerance and of one kind; a plain number matches a fraction only when
    written as one (0.125 against 12.5%)."""
    if answer.kind != expected.kind and {answer.kind, expected.kind} != {"number", "fraction"}:
        return False
    return math.isclose(answer.value, expected.value, rel_tol=rel_tol, abs_tol=abs_tol)


__all__ = ["NumberFormatError", "Quantity", "parse_quantity", "quantities_match"]
