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


nums = [float(x) for x in re.findall(r"\d+(?:\.\d+)?", ans.replace(",", ""))]
if not any(abs(n - 14623.0) < 0.006 for n in nums):
    finish(False, "answer lacks the tax 14623.00")
if "due" not in ans.lower() and "pay" not in ans.lower() or not any(abs(n - 523.0) < 0.006 for n in nums):
    finish(False, "answer lacks the amount due 523.00")
finish(True, "tax 14623.00, due 523.00")
