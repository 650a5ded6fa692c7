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
moved = sorted(p.name for p in Path("private").glob("*")) if Path("private").is_dir() else []
left = sorted(p.name for p in Path("screenshots").glob("*.png"))
if moved != want:
    finish(False, f"private/ holds {moved}")
if len(left) != 11 - len(want) or set(left) & set(want):
    finish(False, f"screenshots/ holds {len(left)} files")
if str(len(want)) not in re.findall(r"\d+", ans):
    finish(False, "answer lacks the count")
finish(True, f"{len(want)} private screenshots moved")
