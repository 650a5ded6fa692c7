import csv
import subprocess
import sys
from pathlib import Path

IMPL = r'''"""Durations as people type them into my time tracker."""
import re

_NUM = r"(\d+(?:\.\d+)?)"
_UNITS = re.compile(
    r"^(?:" + _NUM + r"\s*(?:h|hr|hrs|hour|hours)(?![a-z]))?\s*"
    r"(?:" + _NUM + r"\s*(?:m|min|mins|minute|minutes)(?![a-z]))?\s*"
    r"(?:" + _NUM + r"\s*(?:s|sec|secs|second|seconds)(?![a-z]))?$"
)
_CLOCK = re.compile(r"^(\d+):([0-5]\d)(?::([0-5]\d))?$")
_ISO = re.compile(r"^pt(?:" + _NUM + r"h)?(?:" + _NUM + r"m)?(?:" + _NUM + r"s)?$")
_BARE = re.compile(r"^" + _NUM + r"$")


def _total(h, m, s):
    if h is None and m is None and s is None:
        raise ValueError("no duration")
    return round(float(h or 0) * 3600 + float(m or 0) * 60 + float(s or 0))


def parse_duration(text):
    """Parse a duration and return whole seconds (int).

    Accepted forms (case-insensitive, surrounding whitespace ignored):
      * unit groups in the order h, m, s, each optional but at least one present, with optional
        spaces between groups and between number and unit; units may be written
        h/hr/hrs/hour/hours, m/min/mins/minute/minutes, s/sec/secs/second/seconds;
        numbers may be decimal ("1.5h" = 5400, "0.25 hours" = 900): e.g. "1h30m", "90m",
        "1 h 30 min", "2 hours 5 seconds", "45s"
      * clock form "H:MM" (hours:minutes) or "H:MM:SS", minutes and seconds two digits < 60
      * ISO 8601 "PT#H#M#S" (each part optional, at least one), e.g. "PT1H30M", "pt45s"
      * a bare number means minutes: "25" = 1500
    The result is rounded to the nearest second. Anything else - including negative numbers,
    empty strings, repeated or out-of-order units - raises ValueError.
    """
    if not isinstance(text, str):
        raise ValueError("not a string")
    t = text.strip().lower()
    if not t:
        raise ValueError("empty duration")
    m = _BARE.match(t)
    if m:
        return round(float(m.group(1)) * 60)
    m = _CLOCK.match(t)
    if m:
        return int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3) or 0)
    m = _ISO.match(t)
    if m:
        return _total(*m.groups())
    m = _UNITS.match(t)
    if m:
        return _total(*m.groups())
    raise ValueError(f"not a duration: {text!r}")
'''
Path("timetrack/timetrack/duration.py").write_text(IMPL)
sys.path.insert(0, "timetrack")
from timetrack import parse_duration  # noqa: E402

total = 0.0
with open("timetrack/timesheet_2024-05.csv", newline="") as fh:
    for row in csv.DictReader(fh):
        total += parse_duration(row["duration"]) / 3600 * float(row["rate_eur_h"])
subprocess.run([sys.executable, "-m", "unittest", "discover", "-s", "tests", "-q"], cwd="timetrack", check=True,
               capture_output=True)
print(f"total={total:.2f}")
