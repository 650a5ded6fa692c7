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


f = Path("claim_deadline.txt")
if not f.is_file() or f.read_text().strip() != "2025-05-17":
    finish(False, "claim_deadline.txt missing or wrong")
if "2025-05-17" not in ans:
    finish(False, "answer lacks 2025-05-17")
finish(True, "30-month warranty: last claim day 2025-05-17")
