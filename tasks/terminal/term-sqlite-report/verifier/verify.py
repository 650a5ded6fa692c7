import json, sys
from pathlib import Path

HERE = Path(__file__).parent
ANSWER = HERE / "answer.txt"
ans = ANSWER.read_text(errors="replace") if ANSWER.exists() else ""


def finish(ok, reason):
    print(json.dumps({"reward": 1.0 if ok else 0.0, "reason": reason}))
    sys.exit(0)


if len(ans) > 4000:  # a final answer, not a dump of every candidate value
    finish(False, "answer longer than 4000 characters")


import csv

want = json.loads((HERE / "expected.json").read_text())
order = sorted(want.items(), key=lambda kv: -kv[1])
f = Path("q1_spending.csv")
rows = list(csv.DictReader(f.read_text().splitlines())) if f.is_file() else []
try:
    got = [(r["category"], round(float(r["total_eur"]) * 100)) for r in rows]
except (KeyError, ValueError, TypeError):
    got = []
if got != order:
    finish(False, f"q1_spending.csv is {got}")
if order[0][0] not in ans.lower():
    finish(False, f"answer lacks {order[0][0]}")
finish(True, f"top category {order[0][0]}")
