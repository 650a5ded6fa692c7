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


dupes = json.loads((HERE / "expected.json").read_text())
cam = Path("camera")
moved = sorted(p.name for p in (cam / "duplicates").glob("*")) if (cam / "duplicates").is_dir() else []
if moved != dupes:
    finish(False, f"camera/duplicates has {len(moved)} files, expected {len(dupes)} specific ones")
kept = sorted(p.name for p in cam.glob("*.jpg"))
if len(kept) + len(moved) != 160 or set(kept) & set(moved):
    finish(False, f"camera/ keeps {len(kept)} photos; expected {160 - len(dupes)}")
if len({p.read_bytes() for p in cam.glob('*.jpg')}) != len(kept):
    finish(False, "duplicates remain in camera/")
nums = re.findall(r"\d+", ans)
if str(len(dupes)) not in nums:
    finish(False, f"answer does not state {len(dupes)} moved files")
finish(True, f"{len(dupes)} duplicates moved")
