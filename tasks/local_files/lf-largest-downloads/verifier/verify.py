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


top = json.loads((HERE / "expected.json").read_text())
f = Path("largest.txt")
lines = [l.split(None, 1) for l in f.read_text().splitlines() if l.strip()] if f.is_file() else []
got = [(p.strip(), int(s)) for s, p in lines if s.isdigit()]
if got != [tuple(t) for t in top]:
    finish(False, f"largest.txt is {got}")
if top[0][0].split("/")[-1] not in ans:
    finish(False, "answer lacks the largest file")
finish(True, "three largest files found")
