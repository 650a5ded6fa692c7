import csv, json, re, sys
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
f = Path("payroll_march.csv")
if not f.is_file():
    finish(False, "payroll_march.csv missing")
rows = list(csv.DictReader(f.read_text().splitlines()))
got = {r.get("id", ""): r.get("gross", "") for r in rows}
if [r.get("id") for r in rows] != sorted(want) or any(abs(float(got[k] or 0) - float(v)) > 0.006 for k, v in want.items()):
    finish(False, f"payroll_march.csv rows wrong: {got}")
total = sum(float(v) for v in want.values())
nums = [float(x) for x in re.findall(r"\d+(?:\.\d+)?", ans.replace(",", ""))]
if not any(abs(n - total) < 0.011 for n in nums):
    finish(False, f"answer lacks total {total:.2f}")
finish(True, f"March payroll {total:.2f}")
