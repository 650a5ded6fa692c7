import json, sys
from pathlib import Path

ANSWER = Path(__file__).parent / "answer.txt"
ans = ANSWER.read_text(errors="replace") if ANSWER.exists() else ""


def finish(ok, reason):
    print(json.dumps({"reward": 1.0 if ok else 0.0, "reason": reason}))
    sys.exit(0)


if len(ans) > 4000:  # a final answer, not a dump of every candidate value
    finish(False, "answer longer than 4000 characters")


f = Path("letter_draft.txt")
text = f.read_text() if f.is_file() else ""
if "[POPULATION]" in text or "town of 21468 people" not in text or "Dear Sigrun" not in text:
    finish(False, "letter not completed with 21468")
if "21468" not in ans.replace(",", "").replace(" ", "") or "brunhaven" not in ans.lower():
    finish(False, "answer lacks Brunhaven / 21468")
finish(True, "Brunhaven, 21468")
