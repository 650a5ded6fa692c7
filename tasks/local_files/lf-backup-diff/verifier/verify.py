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


want = [tuple(c) for c in json.loads((HERE / "expected.json").read_text())]
f = Path("changes.txt")
got = [tuple(l.split(None, 1)) for l in f.read_text().splitlines() if l.strip()] if f.is_file() else []
got = [(c.strip(), p.strip()) for c, p in got] if all(len(g) == 2 for g in got) else []
if got != want:
    finish(False, f"changes.txt has {len(got)} lines, expected {len(want)}")
counts = {k: sum(1 for c, _ in want if c == k) for k in "ADM"}
nums = re.findall(r"\d+", ans)
if any(str(v) not in nums for v in counts.values()):
    finish(False, f"answer lacks the counts {counts}")
finish(True, f"diff correct {counts}")
