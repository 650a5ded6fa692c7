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
has = lambda v: any(abs(n - v) <= 0.011 for n in nums)
if not has(433.63):
    finish(False, "monthly payment 433.63 not in answer")
if not has(2314.24):
    finish(False, "total interest 2314.24 not in answer")
finish(True, "payment 433.63, interest 2314.24")
