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

want = {"Amara": 413.60, "Bjorn": -142.30, "Chen": -131.80, "Dalia": -139.50}
f = Path("balances.csv")
rows = list(csv.DictReader(f.read_text().splitlines())) if f.is_file() else []
try:
    got = [(r["name"], float(r["balance"])) for r in rows]
except (KeyError, ValueError, TypeError):
    got = []
if [n for n, _ in got] != sorted(want) or any(abs(b - want[n]) > 0.011 for n, b in got):
    finish(False, f"balances.csv is {got}")
if "amara" not in ans.lower() or "413.60" not in ans.replace(",", "."):
    finish(False, "answer lacks Amara 413.60")
finish(True, "balances correct")
