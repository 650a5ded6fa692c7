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
f = Path("user_stats.txt")
lines = [l.strip() for l in f.read_text().splitlines() if l.strip()] if f.is_file() else []
if lines != [f"distinct_users={want['distinct_users']}", f"buyers={want['buyers']}"]:
    finish(False, f"user_stats.txt is {lines}")
nums = re.findall(r"\d+", ans.replace(",", ""))
if str(want["distinct_users"]) not in nums or str(want["buyers"]) not in nums:
    finish(False, "answer lacks the two counts")
finish(True, "distinct users counted")
