"""Grade off-meeting-actions.

``nadia_todo.txt`` must hold exactly Nadia's three action items from the minutes, one per line
as ``<YYYY-MM-DD> <task text>``, earliest first; the task text must be the item's (recognised
by its key phrase, so light rewording is fine), never another person's item. The answer is
``items=3``. The minutes must be left as they were.
"""

import hashlib
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Number, answer, check_files, expect, fields, main, pristine_path, read_text

MINUTES = "meeting_2024-03-03.odt"
WANT = [
    ("2024-03-12", ("internet contract",)),
    ("2024-03-18", ("budget spreadsheet",)),
    ("2024-03-28", ("rent",)),
]
OTHERS = ("plumber", "vacuum", "spring cleaning")  # the other flatmates' items
SPEC = {"items": Number(units=("items", "action items"))}
LINE = re.compile(r"^(\d{4}-\d{2}-\d{2})\s+(\S.*)$")


def check() -> str:
    check_files(unchanged={MINUTES: hashlib.sha256(pristine_path(MINUTES).read_bytes()).hexdigest()})
    lines = [line.strip() for line in read_text("nadia_todo.txt").splitlines() if line.strip()]
    if len(lines) != len(WANT):
        raise Fail(f"nadia_todo.txt has {len(lines)} items, expected {len(WANT)}")
    for line, (date, phrases) in zip(lines, WANT, strict=True):
        m = LINE.match(line.lstrip("-* "))
        if not m or m.group(1) != date:
            raise Fail(f"line {line[:60]!r} should start with {date}")
        text = m.group(2).casefold()
        if not all(p in text for p in phrases) or any(o in text for o in OTHERS):
            raise Fail(f"line {line[:60]!r} is not Nadia's item due {date}")
    return expect(fields(answer(), SPEC), {"items": 3}, SPEC)


main(check)
