import json, re, sys
from pathlib import Path

HERE = Path(__file__).parent
ANSWER = HERE / "answer.txt"
ans = ANSWER.read_text(errors="replace") if ANSWER.exists() else ""


def finish(ok, reason):
    print(json.dumps({"reward": 1.0 if ok else 0.0, "reason": reason}))
    sys.exit(0)


if len(ans) > 4000:  # a final answer, not a dump of every candidate value
    finish(False, "answer longer than 4000 characters")


if not re.search(r"2024-05-21\D+08[:.]15", ans):
    finish(False, "expected 2024-05-21 08:15 (UTC 06:15 in CEST)")
finish(True, "next dentist appointment found")
