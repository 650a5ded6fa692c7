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


plan = json.loads((HERE / "expected.json").read_text())
left = [p for p in Path("camera_roll").rglob("*") if p.is_file()] if Path("camera_roll").exists() else []
if left:
    finish(False, f"{len(left)} files left in camera_roll/")
for name, folder in plan.items():
    if not (Path("archive") / folder / name).is_file():
        finish(False, f"{name} not in archive/{folder}/")
total = sum(1 for p in Path("archive").rglob("*") if p.is_file())
if total != len(plan):
    finish(False, f"archive holds {total} files, expected {len(plan)}")
n2023 = sum(1 for f in plan.values() if f.startswith("2023/"))
if str(n2023) not in re.findall(r"\d+", ans):
    finish(False, f"answer lacks {n2023}")
finish(True, "camera roll archived by date")
