import json
import re
from pathlib import Path

roll = Path("camera_roll")
moved_2023 = 0
for p in sorted(roll.iterdir()):
    if p.suffix == ".json":
        continue
    m = re.search(r"(20\d\d)-?(\d\d)-?(\d\d)", p.name)
    sidecar = roll / (p.name + ".json")
    if m:
        y, mo = m.group(1), m.group(2)
    else:
        taken = json.loads(sidecar.read_text())["photoTakenTime"]["formatted"]
        y, mo = taken[:4], taken[5:7]
    dest = Path("archive") / y / mo
    dest.mkdir(parents=True, exist_ok=True)
    for f in (p, sidecar):
        if f.exists():
            f.rename(dest / f.name)
            moved_2023 += y == "2023"
print(f"files_2023={moved_2023}")
