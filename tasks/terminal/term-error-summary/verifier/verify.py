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


want = json.loads((HERE / "expected.json").read_text())
order = sorted(want.items(), key=lambda kv: (-kv[1], kv[0]))
f = Path("errors.txt")
got = [tuple(l.split()) for l in f.read_text().splitlines() if l.strip()] if f.is_file() else []
if got != [(s, str(n)) for s, n in order]:
    finish(False, f"errors.txt is {got}")
if order[0][0] not in ans.lower():
    finish(False, f"answer lacks {order[0][0]}")
finish(True, "error counts correct")
