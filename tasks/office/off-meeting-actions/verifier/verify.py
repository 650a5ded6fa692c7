"""Grade off-meeting-actions.

``nadia_todo.txt`` must hold exactly Nadia's three action items from the minutes, one per line
as ``<YYYY-MM-DD> <task text>``, earliest first; the task text must be the item's (recognised
by its key phrase and its action verb, so light rewording is fine but "renew" for "cancel" is
not), never another person's item. The answer is
``items=3``. The minutes must be left as they were.
"""

import hashlib
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Number, answer, check_files, expect, fields, main, pristine_path, read_text

MINUTES = "meeting_2024-03-03.odt"
# (due date, what the item is about, what must be done to it): the action is checked as well
# as its object, so "renew the internet contract" is not the item "cancel the internet contract".
WANT = [
    ("2024-03-12", r"internet contract", r"cancel|terminate|end|quit"),
    ("2024-03-18", r"budget spreadsheet", r"update|refresh|bring up to date"),
    ("2024-03-28", r"rent", r"transfer|pay|send|wire"),
]
NEGATED = re.compile(r"\b(?:not|don'?t|do not|no longer|never|instead of|rather than|without)\b")
OTHERS = ("plumber", "vacuum", "spring cleaning")  # the other flatmates' items
SPEC = {"items": Number(units=("items", "action items"))}
LINE = re.compile(r"^(\d{4}-\d{2}-\d{2})\s+(\S.*)$")


def check() -> str:
    check_files(unchanged={MINUTES: hashlib.sha256(pristine_path(MINUTES).read_bytes()).hexdigest()})
    lines = [line.strip() for line in read_text("nadia_todo.txt").splitlines() if line.strip()]
    if len(lines) != len(WANT):
        raise Fail(f"nadia_todo.txt has {len(lines)} items, expected {len(WANT)}")
    for line, (date, thing, action) in zip(lines, WANT, strict=True):
        m = LINE.match(line.lstrip("-* "))
        if not m or m.group(1) != date:
            raise Fail(f"line {line[:60]!r} should start with {date}")
        text = m.group(2).casefold()
        if not re.search(rf"\b(?:{thing})\b", text) or any(o in text for o in OTHERS):
            raise Fail(f"line {line[:60]!r} is not Nadia's item due {date}")
        if not re.search(rf"\b(?:{action})\b", text) or NEGATED.search(text):
            raise Fail(f"line {line[:60]!r} does not say what the minutes ask done ({action.split('|')[0]})")
    return expect(fields(answer(), SPEC), {"items": 3}, SPEC)


main(check)
