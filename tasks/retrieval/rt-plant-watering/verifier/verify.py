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


want = [("Desert Lantern Cactus", 5), ("Marsh Bell Orchid", 10), ("Velvet Arrow Plant", 11),
        ("Silver Ribbon Fern", 17), ("Moonleaf Ivy", 21)]
f = Path("watering.txt")
got = []
for line in (f.read_text().splitlines() if f.is_file() else []):
    m = re.match(r"\s*-?\s*(.+?):\s*every (\d+) days", line)
    if m:
        got.append((m.group(1).strip(), int(m.group(2))))
if got != want:
    finish(False, f"watering.txt has {got}")
if "desert lantern cactus" not in ans.lower():
    finish(False, "answer does not name the Desert Lantern Cactus")
finish(True, "watering schedule correct")
