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


f = Path("recalled.txt")
got = [l.strip() for l in f.read_text().splitlines() if l.strip()] if f.is_file() else []
want = ["kettle", "baby monitor", "heater fan"]
if got != want:
    finish(False, f"recalled.txt is {got}")
low = ans.lower()
if not all(w in low for w in want) or any(w in low for w in ("lamp", "power bank", "hair dryer")):
    finish(False, "answer must name exactly the kettle, baby monitor and heater fan")
finish(True, "recalled appliances found")
