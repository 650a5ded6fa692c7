"""Verifier for lf-next-dentist: the next dentist appointment that is not cancelled, local time.

The 14 May appointment is cancelled; its replacement on 21 May is stored in UTC (06:15Z), which
is 08:15 in Berlin summer time. Answering 06:15 (UTC) or the cancelled slot is the mistake.
"""

import datetime
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Date, Fail, Field, answer, check_files, fields, main

DATE = datetime.date(2024, 5, 21)
TIME = (8, 15)
CALENDAR = {"calendar.ics": "789242abdf22d0c03c67cacc81431b0f8c613d544e67a70ca8e6dcf9896c025d"}
HEDGE = re.compile(r"\b(or|maybe|perhaps|possibly|probably|either|unsure)\b|\?", re.IGNORECASE)
TIME_RE = re.compile(
    r"(\d{1,2})\s*[:.h]\s*(\d{2})(?:\s*(am|a\.m\.|pm|p\.m\.))?(?:\s*(?:cest|local(?: time)?|uhr|h))?"
)


class Clock(Field):
    """A time of day: '08:15', '8:15', '8.15', '8h15', '8:15 am', '08:15 CEST' -> (8, 15)."""

    def parse(self, raw: str) -> tuple[int, int]:
        if HEDGE.search(raw):  # checked before notes in parentheses are dropped
            raise Fail(f"hedged answer {raw.strip()!r}")
        value = re.sub(r"\s*\([^()]*\)\s*$", "", str(super().parse(raw)).casefold())  # '(local time)'
        m = TIME_RE.fullmatch(value)
        if not m:
            raise Fail(f"time {raw.strip()!r} is not one HH:MM time")
        hour, minute = int(m.group(1)), int(m.group(2))
        if m.group(3) and m.group(3).startswith("p") and hour < 12:
            hour += 12
        return hour, minute


def check() -> str:
    check_files(unchanged=CALENDAR)
    got = fields(answer(), {"date": Date(), "time": Clock()})
    if got["date"] != DATE:
        raise Fail(f"date {got['date']} is not the next non-cancelled dentist appointment")
    if got["time"] != TIME:
        raise Fail(f"time {got['time']} is not 08:15 local time (06:15 UTC)")
    return "next dentist appointment: 2024-05-21 08:15"


main(check)
