import json, re, sys
from pathlib import Path

ANSWER = Path(__file__).parent / "answer.txt"
ans = ANSWER.read_text(errors="replace") if ANSWER.exists() else ""


def finish(ok, reason):
    print(json.dumps({"reward": 1.0 if ok else 0.0, "reason": reason}))
    sys.exit(0)


if len(ans) > 4000:  # a final answer, not a dump of every candidate value
    finish(False, "answer longer than 4000 characters")


f = Path("nadia_todo.txt")
lines = [l.strip() for l in f.read_text().splitlines() if l.strip()] if f.is_file() else []
want = [("2024-03-12", "internet"), ("2024-03-18", "budget"), ("2024-03-28", "rent")]
if len(lines) != 3:
    finish(False, f"nadia_todo.txt has {len(lines)} items, expected 3")
for line, (date, word) in zip(lines, want):
    if not line.startswith(date) or word not in line.lower():
        finish(False, f"line {line[:60]!r} should be {date} ... {word}")
if "3" not in re.findall(r"\d+", ans) and "three" not in ans.lower():
    finish(False, "answer lacks the count 3")
finish(True, "Nadia's three items listed in order")
