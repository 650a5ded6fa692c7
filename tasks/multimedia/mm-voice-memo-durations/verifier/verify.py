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


want = json.loads((HERE / "expected.json").read_text())
nums = [float(x) for x in re.findall(r"\d+(?:\.\d+)?", ans)]
if not any(abs(n - want["total_s"]) <= 0.11 for n in nums):
    finish(False, f"answer lacks total {want['total_s']}")
if want["longest"].lower() not in ans.lower():
    finish(False, f"answer lacks the title {want['longest']!r}")
finish(True, "durations and longest memo correct")
