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


import csv

want = json.loads((HERE / "expected.json").read_text())
f = Path("projection.csv")
rows = list(csv.DictReader(f.read_text().splitlines())) if f.is_file() else []
try:
    got = [(r["month"], float(r["balance"])) for r in rows]
except (KeyError, ValueError, TypeError):
    got = []
if [m for m, _ in got] != [m for m, _ in want]:
    finish(False, f"projection.csv covers {len(got)} months, expected {len(want)} ending {want[-1][0]}")
if any(abs(g - w) > 1.0 for (_, g), (_, w) in zip(got, want)):
    finish(False, "projection.csv balances deviate")
month, bal = want[-1]
nums = [float(x) for x in re.findall(r"\d+\.\d+", ans.replace(",", ""))]
if month not in ans or not any(abs(n - bal) <= 1.0 for n in nums):
    finish(False, f"answer lacks {month} {bal:.2f}")
finish(True, f"goal reached {month}")
