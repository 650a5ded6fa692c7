import json, re, sys
from pathlib import Path

ANSWER = Path(__file__).parent / "answer.txt"
ans = ANSWER.read_text(errors="replace") if ANSWER.exists() else ""


def finish(ok, reason):
    print(json.dumps({"reward": 1.0 if ok else 0.0, "reason": reason}))
    sys.exit(0)


if len(ans) > 4000:  # a final answer, not a dump of every candidate value
    finish(False, "answer longer than 4000 characters")


f = Path("bills/electricity.txt")
if not f.is_file():
    finish(False, "bills/electricity.txt missing")
line = f.read_text().strip()
if line != "amount=142.67 due=2024-03-22":
    finish(False, f"bills/electricity.txt has {line[:80]!r}")
if "142.67" not in ans or not re.search(r"2024-03-22|22\.? ?Mar|March 22", ans):
    finish(False, "answer lacks amount 142.67 / due date")
finish(True, "invoice NE-2024-0388 found and recorded")
