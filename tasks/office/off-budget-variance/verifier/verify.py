import csv, json, sys
from pathlib import Path

HERE = Path(__file__).parent
ANSWER = HERE / "answer.txt"
ans = ANSWER.read_text(errors="replace") if ANSWER.exists() else ""


def finish(ok, reason):
    print(json.dumps({"reward": 1.0 if ok else 0.0, "reason": reason}))
    sys.exit(0)


if len(ans) > 4000:  # a final answer, not a dump of every candidate value
    finish(False, "answer longer than 4000 characters")


data = json.loads((HERE / "expected.json").read_text())
over = sorted(((d, b, a, (a - b) / b * 100) for d, (b, a) in data.items() if a > b * 1.1), key=lambda x: -x[3])
f = Path("variance.csv")
if not f.is_file():
    finish(False, "variance.csv missing")
rows = list(csv.DictReader(f.read_text().splitlines()))
if [r.get("department") for r in rows] != [o[0] for o in over]:
    finish(False, f"variance.csv departments {[r.get('department') for r in rows]}")
for r, (d, b, a, pct) in zip(rows, over):
    try:
        ok = int(float(r["budget"])) == b and int(float(r["actual"])) == a and abs(float(r["overrun_pct"]) - pct) <= 0.051
    except (KeyError, ValueError, TypeError):
        ok = False
    if not ok:
        finish(False, f"row for {d} wrong")
if over[0][0].lower() not in ans.lower():
    finish(False, f"answer does not name {over[0][0]}")
finish(True, f"{len(over)} departments over budget; worst {over[0][0]}")
