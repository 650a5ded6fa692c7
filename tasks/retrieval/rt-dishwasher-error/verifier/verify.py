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


f = Path("service_request.txt")
if not f.is_file() or f.read_text().strip().lower() != "e-9440: circulation pump":
    finish(False, "service_request.txt missing or wrong")
if "circulation pump" not in ans.lower():
    finish(False, "answer lacks the circulation pump")
finish(True, "E-9440 = circulation pump")
