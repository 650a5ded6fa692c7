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


want = round((22.0 + 18.9 + 39.5 + 36.1 + 15.0 + 27.4 + 38.3) / (51655 - 48210) * 100, 2)
nums = [float(x) for x in re.findall(r"\d+(?:[.,]\d+)?", ans.replace(",", "."))]
if not any(abs(n - want) <= 0.006 for n in nums):
    finish(False, f"answer lacks {want}")
finish(True, f"{want} l/100 km")
