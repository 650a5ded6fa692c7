import json, re, sys
from pathlib import Path

ANSWER = Path(__file__).parent / "answer.txt"
ans = ANSWER.read_text(errors="replace") if ANSWER.exists() else ""


def finish(ok, reason):
    print(json.dumps({"reward": 1.0 if ok else 0.0, "reason": reason}))
    sys.exit(0)


if len(ans) > 4000:  # a final answer, not a dump of every candidate value
    finish(False, "answer longer than 4000 characters")


nums = [float(x) for x in re.findall(r"\d+(?:\.\d+)?", ans.replace(",", ""))]
if not any(abs(n - 70900) < 0.01 for n in nums):
    finish(False, "answer lacks the value 70900.00")
if not re.search(r"2026-09-30|30 Sep\w* 2026|September 30,? 2026", ans):
    finish(False, "answer lacks the end date 2026-09-30")
finish(True, "value and end date correct")
