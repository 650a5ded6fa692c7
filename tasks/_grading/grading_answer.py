"""The final answer read as a whole: one value per field, and no second, different candidate.

:func:`fields` takes the value of each key of the task's answer template and then looks at
everything else the answer says about that key. These are candidates for a field:

- every ``key=value`` / ``key: value`` occurrence (markdown, quotes and a JSON object's
  ``"key": value`` alike; a JSON object with the key twice gives both values);
- an alternative key: the key with a word that offers another value ("tax_alternative=",
  "alt tax:", "corrected tax =", "tax2=");
- a prose statement of the key's value: "the tax is actually 4,800 EUR", "a consumption of
  5.72 l/100 km", "the answer is ..." (a one-field template);
- a number stated in a retraction ("Wait, I made a slip above. The correct figure is 6.92")
  that does not restate the answer's value, or a label named in a conclusion ("In other
  words, you will receive a refund").

Every candidate must be the same value (equal within the field's tolerance); a different one
fails the attempt with reason ``ambiguous_answer``, as does a phrase that offers another reading
of the whole result ("it could also be", "depending on how the data is read", "not 100% sure").
Restating the same value (in working, in prose, in a sentence around it) passes, and so does
the punctuation that ends a sentence.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping

from grading_core import AmbiguousAnswer, Fail, NoValue, clean
from grading_fields import Choice, Field, Number
from grading_hedges import CONCLUSION, RETRACTION, answer_hedge
from grading_numbers import leading_number

MAX_PARSE_CHARS = 100_000

# Words that, joined to a key, offer another value for it ("tax_alternative", "alt tax").
_ALTERNATIVE_WORDS = (
    r"alternative|alternatives|alternate|alt|other|another|second|2nd|third|3rd|new|revised|corrected"
    r"|correct|actual|real|true|updated|final|possible|option|maybe|also|instead"
)
# Between a key named in prose and its value ("the tax on 52,000 EUR is ...").
_KEY_NOUNS = r"(?:\s+(?:itself|amount|figure|value|total|due|owed|payable|result|number|overall))?"
_GAP = r"(?:\s+(?:for|on|over|in|of|from|at|across|during|between|with|after|before|per|since|to)\b[^.;:=\n]{0,40}?)?"
_CONNECTOR = (
    r"\s+(?:is|are|was|were|will\s+be|would\s+be|should\s+be|must\s+be|comes?\s+to|came\s+to|equals?"
    r"|amounts?\s+to|totals?|works?\s+out\s+(?:to|at)|stands?\s+at|becomes?|of|at)\s+"
)
_ADVERBS = (
    r"(?:(?:actually|really|then|now|instead|also|just|exactly|still|therefore|thus|indeed|in\s+fact"
    r"|rather|only|precisely|approximately|about|around|roughly|likely|probably|correctly|in\s+total)\s+)*"
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[A-Z0-9*_`])|\n+")
_STATED_NUMBER = re.compile(
    r"(?:\b(?:is|are|was|were|be|to|of|at|equals?)\s+|[=:]\s*)"
    + _ADVERBS
    + r"(?=(?P<value>[-$€£¥₹0-9][^\n]{0,60}))",
    re.IGNORECASE,
)


def _key_pattern(key: str) -> str:
    parts = [re.escape(p) for p in re.split(r"[\s_-]+", key.strip()) if p]
    return r"[\s_-]*".join(parts)


def _json_pairs(text: str) -> list[tuple[str, str]] | None:
    """The top-level pairs of a whole-answer JSON object, duplicates kept; None if not one."""
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = re.sub(r"^```\w*\s*|\s*```$", "", stripped)
    if not stripped.startswith("{"):
        return None
    pairs: list[tuple[str, str]] = []
    try:
        data = json.loads(stripped, object_pairs_hook=lambda items: {"__pairs__": items})
    except (json.JSONDecodeError, RecursionError):
        return None
    if not isinstance(data, dict) or "__pairs__" not in data:
        return None
    for k, v in data["__pairs__"]:
        if isinstance(v, dict | list):
            pairs.append((str(k), json.dumps(_unwrap(v))))
        else:
            pairs.append((str(k), "" if v is None else str(v)))
    return pairs


def _unwrap(v: object) -> object:
    if isinstance(v, dict) and "__pairs__" in v:
        return {str(k): _unwrap(x) for k, x in v["__pairs__"]}
    if isinstance(v, list):
        return [_unwrap(x) for x in v]
    return v


class _Scan:
    """The candidates of every field of ``spec`` in one answer."""

    def __init__(self, text: str, spec: Mapping[str, Field]) -> None:
        self.spec = spec
        self.exact: dict[str, list[str]] = {k: [] for k in spec}
        self.alternative: dict[str, list[str]] = {k: [] for k in spec}
        pairs = _json_pairs(text)
        self.prose = "" if pairs is not None else clean(text)
        for k, v in pairs or []:
            key = self._which(k)
            if key is not None:
                self.exact[key].append(v)
        self._scan_lines()

    def _which(self, written: str) -> str | None:
        for key in self.spec:
            if re.fullmatch(_key_pattern(key), written.strip(" \"'*_`"), re.IGNORECASE):
                return key
        return None

    def _scan_lines(self) -> None:
        keys = "|".join(f"(?:{_key_pattern(k)})" for k in self.spec)
        alt = rf"(?:(?:{_ALTERNATIVE_WORDS})[\s_-]+)?(?:{keys})(?:[\s_-]*(?:{_ALTERNATIVE_WORDS}|v?\d+))?"
        start = re.compile(rf"(?<![\w])(?P<key>{alt})(?![\w])[\s*`_\"']*(?P<sep>=|:|：)(?!//)", re.IGNORECASE)
        generic = re.compile(r"(?:^|(?<=[\s|;,({]))[\"']?[A-Za-z_][\w-]*[\"']?[\s*`]*[=:](?!\d|//)")
        for line in self.prose.splitlines():
            hits = list(start.finditer(line))
            for i, hit in enumerate(hits):
                end = hits[i + 1].start() if i + 1 < len(hits) else len(line)
                value = line[hit.end() : end]
                g = generic.search(value)
                if g:
                    value = value[: g.start()]
                value = value.strip().strip("*`").strip().rstrip(",;|}").strip().strip("\"'").strip()
                written = hit.group("key")
                key = self._which(written)
                if key is not None:
                    self.exact[key].append(value)
                    continue
                for k in self.spec:
                    if re.search(rf"(?<![A-Za-z]){_key_pattern(k)}(?![A-Za-z])", written, re.IGNORECASE):
                        self.alternative[k].append(value)
                        break

    def sentences(self) -> list[str]:
        return [s.strip() for s in _SENTENCE_END.split(self.prose) if s.strip()]


def _prose_candidates(scan: _Scan, key: str, field: Field) -> list[object]:
    """Values the answer's prose states for ``key`` ("the tax is actually 4,800")."""
    names = [_key_pattern(key)]
    if len(scan.spec) == 1:
        names.append(r"(?:final\s+)?(?:answer|result)")
    mention = re.compile(
        rf"(?<![\w-])(?:{'|'.join(names)})(?![\w-]){_KEY_NOUNS}{_GAP}{_CONNECTOR}{_ADVERBS}(?P<value>.+)",
        re.IGNORECASE,
    )
    out: list[object] = []
    for sentence in scan.sentences():
        for m in mention.finditer(sentence):
            value = field.prose_value(m.group("value"))
            if value is not None:
                out.append(value)
    return out


def _same(field: Field, a: object, b: object) -> bool:
    if isinstance(field, Number):
        if not isinstance(a, float) or not isinstance(b, float):
            return False
        tol = max(field.tol_abs, field.tol_rel * max(abs(a), abs(b)))
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9) or abs(a - b) <= tol + 1e-12
    return a == b


def _parse_exact(key: str, field: Field, raws: list[str]) -> list[object]:
    parsed: list[object] = []
    for raw in raws:
        try:
            parsed.append(field.parse(raw))
        except NoValue:
            continue
        except AmbiguousAnswer as exc:
            raise AmbiguousAnswer(f"{key}: {str(exc).removeprefix('ambiguous_answer: ')}") from None
        except Fail as exc:
            raise Fail(f"{key}: {exc}") from None
    return parsed


def _parse_loose(field: Field, raws: list[str]) -> list[object]:
    """Alternative keys' values: a hedged one is ambiguous, an unreadable one is no candidate."""
    out: list[object] = []
    for raw in raws:
        try:
            out.append(field.parse(raw))
        except AmbiguousAnswer:
            raise
        except Fail:
            continue
    return out


def _retraction_windows(scan: _Scan) -> list[tuple[str, list[float]]]:
    """(text, numbers stated there) of each retraction sentence with the one after it."""
    sentences = scan.sentences()
    out: list[tuple[str, list[float]]] = []
    for i, sentence in enumerate(sentences):
        if not RETRACTION.search(sentence):
            continue
        window = " ".join(sentences[i : i + 2])
        stated = [leading_number(m.group("value")) for m in _STATED_NUMBER.finditer(window)]
        out.append((window, [v for v in stated if v is not None]))
    return out


def _conclusion_labels(scan: _Scan, field: Choice) -> list[str]:
    """Labels a concluding sentence names ("In other words, you will receive a refund")."""
    out: list[str] = []
    for sentence in scan.sentences():
        m = CONCLUSION.search(sentence)
        if not m or re.search(r"(?<![\w-])(?:not|no|never|neither|nor|without)(?![\w-])", sentence, re.I):
            continue
        rest = sentence[m.end() :]
        words = re.findall(r"[\w-]+", rest.casefold())
        named = {
            label
            for toks, label in field.phrasings
            if toks and any(words[i : i + len(toks)] == toks for i in range(len(words)))
        }
        if len(named) == 1:
            out.append(named.pop())
    return out


def fields(text: str, spec: Mapping[str, Field]) -> dict[str, object]:
    """One parsed value per key of ``spec``, read from the whole answer.

    Keys match case-insensitively (spaces, '_' and '-' alike) with markdown or quotes around
    them; pairs may share a line; a whole-answer JSON object is read too. Fail when a field is
    missing or its value does not parse; ``ambiguous_answer`` when the answer anywhere gives
    the field a second, different candidate (module docstring) or hedges the result. An
    occurrence whose value holds nothing parseable (prose that mentions the key) is skipped.
    Keys outside the template that do not name a field are ignored."""
    if len(text) > MAX_PARSE_CHARS:
        raise Fail("answer too long to parse")
    hedge = answer_hedge(clean(text))
    if hedge:
        raise AmbiguousAnswer(f"the answer hedges its result ({hedge!r})")
    scan = _Scan(text, spec)
    values: dict[str, object] = {}
    for key, field in spec.items():
        parsed = _parse_exact(key, field, scan.exact[key])
        if not parsed:
            raise Fail(f"the answer has no {key}=<value>")
        value = parsed[0]
        others = parsed[1:] + _parse_loose(field, scan.alternative[key]) + _prose_candidates(scan, key, field)
        if isinstance(field, Choice):
            others += _conclusion_labels(scan, field)
        for other in others:
            if not _same(field, other, value):
                raise AmbiguousAnswer(f"{key} is given as {_show(value)} and as {_show(other)}")
        values[key] = value
    numbers = [(k, v) for k, v in values.items() if isinstance(spec[k], Number)]
    for window, stated in _retraction_windows(scan) if numbers else []:
        answered = [x for x in stated if any(_same(spec[k], x, v) for k, v in numbers)]
        if stated and not answered:  # a retraction that states a number and not the answer's
            raise AmbiguousAnswer(f"the answer takes a value back: {window[:120]!r}")
    return values


def enumerated(text: str, key: str, labels: Mapping[str, str]) -> set[str]:
    """The set of labels an answer lists as ``key=<label>``, one per line: a structured
    explanation ("problem=script_path" / "problem=schedule") instead of free text a keyword
    check would misjudge. ``labels`` maps each label to what it means (for the reason). Every
    occurrence must name exactly one label; a hedge is ``ambiguous_answer``; Fail when none."""
    if len(text) > MAX_PARSE_CHARS:
        raise Fail("answer too long to parse")
    hedge = answer_hedge(clean(text))
    if hedge:
        raise AmbiguousAnswer(f"the answer hedges its result ({hedge!r})")
    choice = Choice(*labels)
    scan = _Scan(text, {key: choice})
    found = set()
    for raw in scan.exact[key]:
        try:
            found.add(choice.parse(raw))
        except NoValue:
            continue
        except AmbiguousAnswer as exc:
            raise AmbiguousAnswer(f"{key}: {str(exc).removeprefix('ambiguous_answer: ')}") from None
        except Fail:
            raise Fail(f"{key}={raw.strip()[:60]!r} is not one of {', '.join(labels)}") from None
    if not found:
        raise Fail(f"the answer has no {key}=<{'|'.join(labels)}> line")
    return found


def _show(value: object) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return repr(value) if isinstance(value, str) else str(value)


def single_value(text: str, field: Field) -> object:
    """The one value of an answer that is a single value (its last non-empty line, markdown and
    a leading 'Answer:' allowed). Fail when it holds none or several."""
    lines = [line for line in clean(text).splitlines() if line.strip(" *`-")]
    if not lines:
        raise Fail("the answer is empty")
    hedge = answer_hedge(clean(text))
    if hedge:
        raise AmbiguousAnswer(f"the answer hedges its result ({hedge!r})")
    raw = re.sub(r"^\s*(?:[-*]\s+)?(?:final\s+)?answer\s*[:=]\s*", "", lines[-1], flags=re.IGNORECASE)
    try:
        return field.parse(raw)
    except NoValue as exc:
        raise Fail(str(exc)) from None


def expect(got: Mapping[str, object], expected: Mapping[str, object], spec: Mapping[str, Field]) -> str:
    """Compare parsed fields with the expected values; Fail naming the first wrong field,
    else return a short success reason."""
    for key, want in expected.items():
        if not spec[key].matches(got.get(key), want):
            raise Fail(f"{key}: got {got.get(key)!r}, expected {want!r}")
    return ", ".join(f"{k}={v}" for k, v in expected.items())
