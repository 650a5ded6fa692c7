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


code = json.loads((HERE / "expected.json").read_text())["code"]
f = Path("door_code.txt")
if not f.is_file() or f.read_text().strip() != code:
    finish(False, "door_code.txt missing or wrong")
if code not in re.sub(r"[\s-]", "", ans):
    finish(False, "answer lacks the code")
finish(True, "DTMF decoded")
