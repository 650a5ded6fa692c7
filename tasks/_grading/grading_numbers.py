"""Numbers as an honest answer writes them: separators, decimal comma, currency, words.

:func:`parse_number` takes exactly one number from a field's value; :func:`leading_number` the
number a prose clause starts with (for restatements read from the rest of the answer).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from grading_core import AmbiguousAnswer, Fail, NoValue, clean
from grading_hedges import hedge_in

_WORD_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "a": 1, "an": 1,
}  # fmt: skip
_WORD_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000}
_CURRENCY_SYMBOLS = "$€£¥₹₩₽¢"
_CURRENCY_WORDS = (
    "euros|euro|dollars|dollar|pounds|pound|francs|franc|kronor|krona|kroner|krone|yen|cents|cent"
)
_SUFFIX_SCALES = {"k": 1e3, "K": 1e3, "M": 1e6, "m": None, "bn": 1e9, "B": 1e9}
_HEDGES = re.compile(
    r"\b(or|and|either|maybe|perhaps|possibly|approximately|approx|about|around|roughly|between|to)\b|~|≈|±|\+/-",
    re.IGNORECASE,
)
_NUMBER_LITERAL = re.compile(r"[+-]?(?:\d[\d,.' _]*\d|\d)(?:[eE][+-]?\d+)?")
_DIGIT_RUNS = re.compile(r"\d+(?:[.,' _]\d+)*")


def _literal_value(lit: str) -> float:
    """One number literal with its separators: '1,234.50', '1.234,50', '1 234,5', '12,5'."""
    sign = -1.0 if lit.startswith("-") else 1.0
    lit = lit.lstrip("+-")
    exp = ""
    m = re.search(r"[eE][+-]?\d+$", lit)
    if m:
        exp, lit = m.group(0), lit[: m.start()]
    lit = lit.replace("'", " ").replace("_", " ")
    if " " in lit:  # spaces only ever group thousands
        groups = lit.split(" ")
        tail = groups[-1]
        dec = ""
        for sep in ",.":
            if sep in tail:
                tail, dec = tail.split(sep, 1)
        if not all(len(g) == 3 and g.isdigit() for g in [*groups[1:-1], tail]) or not groups[0].isdigit():
            raise Fail(f"not a number: {lit!r}")
        if len(groups[0]) > 3:
            raise Fail(f"not a number: {lit!r}")
        lit = "".join(groups[:-1]) + tail + ("." + dec if dec else "")
        if any(c in dec for c in ",."):
            raise Fail(f"not a number: {lit!r}")
        return sign * float(lit + exp)
    commas, dots = lit.count(","), lit.count(".")
    if commas and dots:
        dec_sep = "," if lit.rfind(",") > lit.rfind(".") else "."
        thou = "." if dec_sep == "," else ","
        if lit.count(dec_sep) != 1:
            raise Fail(f"not a number: {lit!r}")
        whole, dec = lit.split(dec_sep)
        _check_groups(whole, thou, lit)
        return sign * float(whole.replace(thou, "") + "." + dec + exp)
    sep = "," if commas else "." if dots else ""
    if not sep:
        return sign * float(lit + exp)
    parts = lit.split(sep)
    if len(parts) > 2:  # '1,234,567' or '1.234.567'
        _check_groups(lit, sep, lit)
        return sign * float(lit.replace(sep, "") + exp)
    whole, dec = parts
    if sep == "," and len(dec) == 3 and whole not in ("0", "") and len(whole) <= 3:
        return sign * float(whole + dec + exp)  # '1,234' is one thousand two hundred ...
    return sign * float(whole + "." + dec + exp)


def _check_groups(whole: str, sep: str, lit: str) -> None:
    groups = whole.split(sep)
    if not groups[0] or len(groups[0]) > 3 or any(len(g) != 3 for g in groups[1:]):
        raise Fail(f"not a number: {lit!r}")


def _words_value(s: str) -> float | None:
    tokens = [t for t in re.split(r"[\s-]+", s.lower()) if t and t != "and"]
    if not tokens or not all(t in _WORD_UNITS or t in _WORD_SCALES for t in tokens):
        return None
    if tokens[0] in _WORD_SCALES:
        tokens.insert(0, "one")
    total, current = 0, 0
    for t in tokens:
        if t in _WORD_UNITS:
            current += _WORD_UNITS[t]
        elif t == "hundred":
            current = max(current, 1) * 100
        else:
            total += max(current, 1) * _WORD_SCALES[t]
            current = 0
    return float(total + current)


def parse_number(s: str, units: Iterable[str] = ()) -> float:
    """Exactly one number from ``s``, however an honest answer writes it.

    Accepts thousands separators (',', '.', space, apostrophe), a decimal comma, a sign or
    'minus', a currency symbol or code before or after, '%'/'percent', suffixes 'k'/'M'/'bn'
    and the words for small numbers ('twelve', 'twenty-one'); ``units`` names units that may
    follow the number ('ms', 'kWh', ...). Working before the result is read as working
    ('197.2 / 3445 × 100 = 5.72': the value is what follows the last '='), and a note after the
    number ('5.72 (full-to-full)', '5.72, rounded') is allowed when it holds no hedge and no
    other number. Fail when ``s`` holds no number or more than one candidate."""
    text = clean(s).strip()
    text = re.sub(r"(?<=[\d%a-zA-Z)])\s*[.;,!]+$", "", text).strip()
    if not text:
        raise NoValue("no number given")
    main, note = _split_note(text)
    if "=" in main:  # working, then the result
        main = main.rsplit("=", 1)[1].strip()
        if not main:
            raise NoValue("no number after the working")
    elif _is_working(main):
        raise NoValue(f"working, not a result: {s.strip()!r}")
    value = _parse_one(main, s, units)
    if note:
        hedge = hedge_in(note)
        if hedge:
            raise AmbiguousAnswer(f"hedged value {s.strip()!r} ({hedge!r})")
        if "=" not in note and not _is_working(note):
            for other in _NOTE_NUMBERS.findall(note):
                got = leading_number(other, units)
                if got is None or not _rounds_to(got, value, main):
                    raise AmbiguousAnswer(f"a second number in {s.strip()!r}")
    return value


_NOTE = re.compile(r"\s*\((?P<paren>[^()]*)\)\s*$|(?:,\s+|;\s*|:\s+)(?P<tail>.*)$")
_NOTE_NUMBERS = re.compile(r"(?:[A-Z]{3}\s*|[$€£¥₹₩₽¢]\s*)?-?\d[\d,.']*")
_OPERATORS = re.compile(r"\d\s*[×*÷+x]\s*[\d(]")


def _rounds_to(other: float, value: float, written: str) -> bool:
    """Whether ``other`` is ``value`` or rounds to it at the decimals ``value`` was written with
    ('5.72 (5.7243 unrounded)')."""
    if math.isclose(other, value, rel_tol=1e-9, abs_tol=1e-9):
        return True
    m = re.search(r"[.,](\d+)\D*$", written)
    decimals = len(m.group(1)) if m and len(m.group(1)) != 3 else 0
    return math.isclose(round(other, decimals), value, rel_tol=1e-9, abs_tol=1e-9)


def _split_note(text: str) -> tuple[str, str]:
    """(the value, the note after it): a trailing parenthesis, or what follows ', ', '; ' or
    once the value itself holds a number."""
    m = _NOTE.search(text)
    if not m or not re.search(r"\d", text[: m.start()]):
        return text, ""
    return text[: m.start()].strip(), (m.group("paren") or m.group("tail") or "").strip()


def _is_working(note: str) -> bool:
    """An arithmetic working ('197.2 / 3445 × 100', '52000 * 0.3'), not a second value: a
    product or sum ('12/13' and '12-15' are candidate lists, not working)."""
    return bool(_OPERATORS.search(note))


_LEADING = re.compile(
    r"\s*(?:minus\s+|-\s*)?(?:[A-Z]{3}\s*|[$€£¥₹₩₽¢]\s*)?-?"
    r"(?:\d{1,3}(?:[,.'’ ]\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?)(?![\d])"
    r"(?:\s*(?:%|percent|per\s+cent|k\b|M\b|bn\b|[A-Z]{3}\b|[$€£¥₹₩₽¢]))?"
)


def leading_number(text: str, units: Iterable[str] = ()) -> float | None:
    """The number a prose clause starts with ('4,800 EUR, because ...' -> 4800.0), or None."""
    m = _LEADING.match(clean(text))
    if not m:
        return None
    try:
        return _parse_one(m.group(0).strip(), m.group(0), units)
    except Fail:
        return None


def _parse_one(text: str, s: str, units: Iterable[str]) -> float:
    text = text.strip()
    if not text:
        raise NoValue("no number given")
    if _HEDGES.search(text) and not _words_only(text):
        raise AmbiguousAnswer(f"hedged or more than one candidate: {s.strip()!r}")
    for unit in sorted(units, key=len, reverse=True):
        text = re.sub(rf"(?<=[\d\s]){re.escape(unit)}\.?$", "", text, flags=re.IGNORECASE).strip()
        text = re.sub(rf"^{re.escape(unit)}(?=[\s\d])", "", text, flags=re.IGNORECASE).strip()
    text = re.sub(r"\s*(%|per\s*cent|percent)$", "", text, flags=re.IGNORECASE)
    text = re.sub(rf"^[{_CURRENCY_SYMBOLS}]\s*|\s*[{_CURRENCY_SYMBOLS}]$", "", text)
    text = re.sub(r"^-\s*[" + _CURRENCY_SYMBOLS + r"]\s*", "-", text)
    text = re.sub(rf"\s*\b({_CURRENCY_WORDS})$", "", text, flags=re.IGNORECASE)
    text = re.sub(r"^[A-Z]{3}\s+|\s*\b[A-Z]{3}$|^(?:eur|usd|gbp|chf)\s*|\s*(?:eur|usd|gbp|chf)$", "", text)
    text = text.strip()
    neg = False
    m = re.match(r"^(minus|negative)\s+", text, re.IGNORECASE)
    if m:
        neg, text = True, text[m.end() :]
    words = _words_value(text)
    if words is not None:
        return -words if neg else words
    scale = 1.0
    m = re.search(r"\s*(k|K|M|bn|B|thousand|million|billion)$", text)
    if m and re.search(r"\d", text[: m.start()]):
        scale = (
            {"thousand": 1e3, "million": 1e6, "billion": 1e9}.get(m.group(1))
            or _SUFFIX_SCALES[m.group(1)]
            or 1
        )
        text = text[: m.start()].strip()
    runs = _DIGIT_RUNS.findall(text)
    if not runs:
        raise NoValue(f"no number in {s.strip()!r}")
    if not _NUMBER_LITERAL.fullmatch(text):
        if len(runs) > 1:
            raise AmbiguousAnswer(f"more than one candidate number in {s.strip()!r}")
        raise Fail(f"not a plain number: {s.strip()!r}")
    value = _literal_value(text) * scale
    if not math.isfinite(value):
        raise Fail(f"not a finite number: {s.strip()!r}")
    return -value if neg else value


def _words_only(text: str) -> bool:
    return _words_value(text) is not None
