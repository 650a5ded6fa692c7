import json, re, sys
from pathlib import Path

ANSWER = Path(__file__).parent / "answer.txt"
ans = ANSWER.read_text(errors="replace") if ANSWER.exists() else ""


def finish(ok, reason):
    print(json.dumps({"reward": 1.0 if ok else 0.0, "reason": reason}))
    sys.exit(0)


if len(ans) > 4000:  # a final answer, not a dump of every candidate value
    finish(False, "answer longer than 4000 characters")


note = Path("note.txt")
if not note.is_file() or "Safe deposit box 114 at Nordbank Solna" not in note.read_text(errors="replace"):
    finish(False, "note.txt missing or not decrypted")
if "583920" not in re.findall(r"\d{6}", ans):
    finish(False, "answer lacks the PIN")
finish(True, "PIN recovered and note decrypted")
