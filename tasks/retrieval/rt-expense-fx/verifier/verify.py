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


want = json.loads((HERE / "expected.json").read_text())["total_eur"]
f = Path("reimbursement.txt")
try:
    got = float(f.read_text().strip().replace(",", "")) if f.is_file() else None
except ValueError:
    got = None
if got is None or abs(got - want) > 0.05:
    finish(False, f"reimbursement.txt is {got}, expected {want}")
nums = [float(x) for x in re.findall(r"\d+(?:\.\d+)?", ans.replace(",", ""))]
if not any(abs(n - want) <= 0.05 for n in nums):
    finish(False, f"answer lacks {want}")
finish(True, f"total {want} EUR")
