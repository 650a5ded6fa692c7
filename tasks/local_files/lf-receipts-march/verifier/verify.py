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


want = json.loads((HERE / "expected.json").read_text())["total"]
f = Path("march_groceries.txt")
if not f.is_file() or f.read_text().strip().replace(",", ".") != want:
    finish(False, "march_groceries.txt missing or wrong")
if want not in ans.replace(",", "."):
    finish(False, f"answer lacks {want}")
finish(True, f"total {want}")
