"""How one field of an answer is parsed and compared: numbers, text, labels, paths, dates, names.

Every field type parses the text of one value (what follows ``key=``) and refuses a hedge or a
second candidate inside it (the vocabularies of ``grading_hedges``); ``prose_value`` reads the
value a prose clause restates ("the tax is 4,800 EUR because ..."), so the whole answer can be
checked for a second, different candidate (``grading_answer``).
"""

from __future__ import annotations

import datetime as _dt
import re
import unicodedata
from collections.abc import Iterable, Mapping

from grading_core import AmbiguousAnswer, Fail, NoValue, clean
from grading_hedges import VALUE_ALTERNATIVE, VALUE_HEDGE
from grading_numbers import leading_number, parse_number

_URL = re.compile(r"\w+://\S+")
_PROSE_HEAD = re.compile(
    r"[,;()]|[.!?](?=\s|$)|\s(?:because|since|as|which|so|but|and|from|with|for|in|on|at|after|before|when|if)\s",
    re.IGNORECASE,
)
_TRAILING_PUNCT = re.compile(r"(?<=\S)[.,;:!]+$")


def _strip_sentence_end(raw: str) -> str:
    """'08:15.' -> '08:15', 'downloads/a.iso.' -> 'downloads/a.iso': the end of the sentence
    the value closes, not part of it."""
    return _TRAILING_PUNCT.sub("", clean(raw)).strip()


def refuse_hedge(raw: str, *, alternatives: bool = True) -> None:
    """Fail (``ambiguous_answer``) when one field's value hedges or lists another candidate."""
    text = _URL.sub("url", clean(raw))
    m = VALUE_HEDGE.search(text) or (VALUE_ALTERNATIVE.search(text) if alternatives else None)
    if m:
        raise AmbiguousAnswer(
            f"hedged or more than one candidate in {raw.strip()!r} ({m.group(0).strip()!r})"
        )


class Field:
    """How one answer field is parsed and compared. Subclasses override ``parse`` (and, where a
    prose sentence can restate the value, ``prose_value``).

    The base parse is one value as written (a free-text explanation, a name to look for):
    trailing sentence punctuation dropped, a hedge ("probably", "I think", "?") refused; list
    words are left to the subclasses, as an explanation may well say "A or B"."""

    def parse(self, raw: str) -> object:
        value = _strip_sentence_end(raw)
        if not value:
            raise NoValue("no value given")
        refuse_hedge(value, alternatives=False)
        return value

    def prose_value(self, clause: str) -> object | None:
        """The value a prose clause states ("the code is 73195028, as the tones say"): the
        clause up to its first comma, parenthesis, sentence end or linking word, parsed as this
        field; None when that is no value of it."""
        head = _PROSE_HEAD.split(clean(clause), maxsplit=1)[0].strip()
        if not head:
            return None
        try:
            return self.parse(head)
        except Fail:
            return None

    def matches(self, got: object, expected: object) -> bool:
        return got == expected


def _norm_text(s: str) -> str:
    s = clean(s).casefold()
    s = re.sub(r"[\"'“”‘’«»]", "", s)
    s = re.sub(r"[^\w\s@.+-]", " ", s)
    s = s.strip(" .,;:!?-")
    return re.sub(r"\s+", " ", s)


_LIST_MARKS = re.compile(r"/|;|\|")


class Number(Field):
    """A number with a tolerance: ``|got - expected| <= max(tol_abs, tol_rel * |expected|)``."""

    def __init__(self, tol_abs: float = 0.0, tol_rel: float = 0.0, units: Iterable[str] = ()) -> None:
        self.tol_abs, self.tol_rel, self.units = tol_abs, tol_rel, tuple(units)

    def parse(self, raw: str) -> float:
        return parse_number(raw, self.units)

    def prose_value(self, clause: str) -> float | None:
        return leading_number(clause, self.units)

    def matches(self, got: object, expected: object) -> bool:
        if not isinstance(got, int | float) or not isinstance(expected, int | float):
            return False
        tol = max(self.tol_abs, self.tol_rel * abs(float(expected)))
        return abs(float(got) - float(expected)) <= tol + 1e-9 * max(1.0, abs(float(expected)))


class Text(Field):
    """Free text, normalised (casefold, no quotes/punctuation, single spaces); a hedge
    ("probably", "I think", "not sure", "?", "~") or a list ("or", "/", ";") fails. With
    ``choices`` it must name exactly one of them (as :class:`Choice` reads a label) and parses to
    that choice as written."""

    def __init__(self, choices: Iterable[str] | None = None) -> None:
        self.choices = tuple(choices) if choices is not None else None
        self._choice = Choice(*self.choices) if self.choices else None

    def parse(self, raw: str) -> str:
        value = _norm_text(raw)
        if not value:
            raise NoValue("no value given")
        if self._choice is not None:
            return self._choice.parse(raw)
        refuse_hedge(raw)
        if _LIST_MARKS.search(_URL.sub("url", clean(raw))):
            raise AmbiguousAnswer(f"more than one candidate in {raw.strip()!r}")
        return value

    def matches(self, got: object, expected: object) -> bool:
        return isinstance(got, str) and isinstance(expected, str) and _norm_text(got) == _norm_text(expected)


_NEGATION = re.compile(
    r"(?<![\w-])(?:not|no|never|neither|nor|without|instead|rather|except|unless|but)(?![\w-])"
)
_EXTRA_WORDS = 4  # words a phrasing may add around a label ("buy the ... pass", "amount due")


def _stem(word: str) -> str:
    if re.search(r"(?:ss|sh|ch|x)es$", word):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _tokens(s: str) -> list[str]:
    return [_stem(w) for w in re.split(r"[\s_-]+", _norm_text(s)) if w]


def _in_order(needle: list[str], hay: list[str]) -> bool:
    it = iter(hay)
    return all(any(w == h for h in it) for w in needle)


class Choice(Field):
    """One label out of a fixed set (direction, category, which item): ``Choice('due',
    'refund', synonyms={'owed': 'due'})``. Parses to the canonical label.

    A phrasing names a label when the label's (or a synonym's) words occur in it in order, with
    at most a few words around them ("the 72-hour visitor pass" names "72-hour pass"; plurals
    alike); it must name exactly one label, with no negation ("not the day passes") and no
    hedge. Anything else fails."""

    def __init__(self, *labels: str, synonyms: Mapping[str, str] | None = None) -> None:
        self.labels = labels
        self.lookup = {_norm_text(label): label for label in labels}
        for word, label in (synonyms or {}).items():
            if label not in labels:
                raise ValueError(f"synonym {word!r} maps to unknown label {label!r}")
            self.lookup[_norm_text(word)] = label
        self.phrasings = [(_tokens(text), label) for text, label in self.lookup.items()]

    def parse(self, raw: str) -> str:
        value = _norm_text(_strip_sentence_end(raw))
        if not value:
            raise NoValue("no label given")
        if value in self.lookup:
            return self.lookup[value]
        if value.replace("_", " ") in self.lookup:
            return self.lookup[value.replace("_", " ")]
        refuse_hedge(raw)
        words = _tokens(value)
        hits = [(toks, label) for toks, label in self.phrasings if toks and _in_order(toks, words)]
        named = {label for _, label in hits}
        if len(named) > 1:
            raise AmbiguousAnswer(f"{raw.strip()!r} names more than one of {', '.join(self.labels)}")
        if not named or _NEGATION.search(value):
            raise Fail(f"{raw.strip()!r} is not one of {', '.join(self.labels)}")
        if len(words) - max(len(toks) for toks, _ in hits) > _EXTRA_WORDS:
            raise Fail(f"{raw.strip()!r} is not one of {', '.join(self.labels)}")
        return named.pop()

    def prose_value(self, clause: str) -> str | None:
        head = re.split(r"[,.;:!?()]|\s(?:because|since|as|which|so|and|but|with|for)\s", clause, maxsplit=1)[
            0
        ]
        try:
            return self.parse(head)
        except Fail:
            return None


def named_label(value: str, labels: list[str]) -> str:
    """The one label a free-text answer value names (as a whole word, any case): "the web
    server" names ``web``; Fail when it names none or several."""
    low = value.casefold()
    named = [
        label for label in labels if re.search(rf"(?<![\w-]){re.escape(label.casefold())}(?![\w-])", low)
    ]
    if len(named) != 1:
        raise Fail(f"answer names {named or 'none'} of {', '.join(labels)}; expected exactly one")
    return named[0]


class RelPath(Field):
    """One path (or file name) under ``folder`` as written: quotes, backticks, a trailing note in
    parentheses ('(24576 bytes)'), the period that ends a sentence, './' and a leading
    '<folder>/' dropped; a hedge or a second candidate fails. ``noun`` names it in that failure
    ("path", "name")."""

    def __init__(self, folder: str, noun: str = "path") -> None:
        self.folder, self.noun = folder, noun

    def parse(self, raw: str) -> str:
        refuse_hedge(raw)  # checked before notes in parentheses are dropped
        value = _strip_sentence_end(re.sub(r"\s*\([^()]*\)[.,;:!]*$", "", clean(raw))).strip("'\"")
        if not value:
            raise NoValue(f"no {self.noun} given")
        if re.search(r"\s|[,;|]", value):
            raise AmbiguousAnswer(f"more than one candidate {self.noun} in {raw.strip()!r}")
        return re.sub(rf"^(?:\./)?(?:{re.escape(self.folder)}/)?", "", value)


MONTH_NAMES = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_MONTHS = {name[:n]: i + 1 for i, name in enumerate(MONTH_NAMES) for n in (3, len(name))}
_MONTHS["sept"] = 9
_WEEKDAYS = r"(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|nesday|sday|urday)?"


_PROSE_DATE = re.compile(
    rf"\s*(?:{_WEEKDAYS}\.?,?\s+)?(?:\d{{4}}-\d{{1,2}}-\d{{1,2}}|\d{{1,2}}\.\d{{1,2}}\.\d{{4}}"
    r"|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?[a-z]{3,9}\.?,?(?:\s+\d{4})?"
    r"|[a-z]{3,9}\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?)(?![\w-])"
)


class Date(Field):
    """A calendar date: '2026-03-05', '5 March 2026', 'March 5, 2026', 'Thu 5 Mar 2026',
    '05.03.2026' (day first), '05/03/2026' only when unambiguous (a part > 12, or equal).
    ``year`` fills in a date written without one. Parses to ``datetime.date``."""

    def __init__(self, year: int | None = None) -> None:
        self.year = year

    def parse(self, raw: str) -> _dt.date:
        s = re.sub(r"[\"'“”‘’«»*`]", "", clean(raw).casefold()).replace(",", " ").strip(" .;:!?")
        s = re.sub(rf"^{_WEEKDAYS}\b\.?\s*", "", s)
        s = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", s)
        s = re.sub(r"\bof\b", " ", s)
        s = re.sub(r"\s+", " ", s).strip()
        if not s:
            raise NoValue("no date given")
        no_slash_dates = re.sub(r"(?<=\d)/(?=\d)", "-", s)
        if (
            len(re.findall(r"\d{4}", s)) > 1
            or VALUE_ALTERNATIVE.search(no_slash_dates)
            or _LIST_MARKS.search(no_slash_dates)
        ):
            raise AmbiguousAnswer(f"more than one candidate date in {raw.strip()!r}")
        refuse_hedge(s, alternatives=False)
        try:
            return self._parse(s, raw)
        except ValueError:
            raise Fail(f"not a valid date: {raw.strip()!r}") from None

    def prose_value(self, clause: str) -> _dt.date | None:
        m = _PROSE_DATE.match(clean(clause).casefold())
        if not m:
            return None
        try:
            return self.parse(m.group(0))
        except Fail:
            return None

    def _parse(self, s: str, raw: str) -> _dt.date:
        if m := re.fullmatch(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})", s):
            return _dt.date(int(m[1]), int(m[2]), int(m[3]))
        if m := re.fullmatch(r"(\d{1,2})\.(\d{1,2})\.(\d{4})", s):
            return _dt.date(int(m[3]), int(m[2]), int(m[1]))
        if m := re.fullmatch(r"(\d{1,2})[/-](\d{1,2})[/-](\d{4})", s):
            a, b = int(m[1]), int(m[2])
            if a > 12 >= b:
                return _dt.date(int(m[3]), b, a)
            if b > 12 >= a or a == b:
                return _dt.date(int(m[3]), a, b)
            raise Fail(f"ambiguous date {raw.strip()!r}: write it as YYYY-MM-DD")
        if m := re.fullmatch(r"(\d{1,2}) ([a-z]+)\.?(?: (\d{4}))?", s):
            return self._named(m[3], m[2], m[1], raw)
        if m := re.fullmatch(r"([a-z]+)\.? (\d{1,2})(?: (\d{4}))?", s):
            return self._named(m[3], m[1], m[2], raw)
        raise Fail(f"not a date: {raw.strip()!r}")

    def _named(self, year: str | None, month: str, day: str, raw: str) -> _dt.date:
        if month not in _MONTHS:
            raise Fail(f"not a date: {raw.strip()!r}")
        if year is None and self.year is None:
            raise Fail(f"date without a year: {raw.strip()!r}")
        return _dt.date(int(year) if year else int(self.year or 0), _MONTHS[month], int(day))


_TITLES = r"(?:mr|mrs|ms|miss|mx|dr|prof|sir|madam|herr|frau|mme|m|sr|sra)\.?"


class Name(Field):
    """A person's or place's name: casefold, accents and titles dropped, 'Last, First' ==
    'First Last'. Parses to the normalised form ('ana lopez')."""

    def parse(self, raw: str) -> str:
        s = clean(raw)
        if re.search(r"\b(or|and|either)\b|/|;|&|\|", s, re.IGNORECASE) or s.count(",") > 1:
            raise AmbiguousAnswer(f"more than one candidate name in {raw.strip()!r}")
        refuse_hedge(s)
        value = self.normalise(s)
        if not value:
            raise NoValue("no name given")
        return value

    @staticmethod
    def normalise(s: str) -> str:
        s = "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))
        s = s.casefold().replace("ß", "ss")
        if s.count(",") == 1:
            last, first = s.split(",")
            s = f"{first} {last}"
        s = re.sub(r"[\"'’`*()]", "", s)
        s = re.sub(r"[^\w\s-]", " ", s)
        words = [w for w in s.split() if not re.fullmatch(_TITLES, w)]
        return " ".join(words)

    def matches(self, got: object, expected: object) -> bool:
        return isinstance(got, str) and isinstance(expected, str) and got == self.normalise(expected)
