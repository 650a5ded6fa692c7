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


low = ans.lower().strip()
if "72" not in low or low.startswith(("day passes", "three day passes", "3 day passes")):
    finish(False, "answer does not pick the 72-hour pass")
if not re.search(r"(?<![\d.])3[.,]80(?!\d)", ans):
    finish(False, "answer lacks the saving 3.80 EUR")
finish(True, "72-hour pass saves 3.80 EUR")
