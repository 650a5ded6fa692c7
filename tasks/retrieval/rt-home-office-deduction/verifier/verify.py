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


want = json.loads((HERE / "expected.json").read_text())
f = Path("deduction.txt")
lines = [l.strip() for l in f.read_text().splitlines() if l.strip()] if f.is_file() else []
if lines != [f"days={want['home_days']}", f"deduction={want['deduction']}"]:
    finish(False, f"deduction.txt is {lines}")
if str(want["deduction"]) not in re.findall(r"\d+", ans.replace(",", "")):
    finish(False, f"answer lacks {want['deduction']}")
finish(True, f"{want['home_days']} days -> {want['deduction']} EUR")
