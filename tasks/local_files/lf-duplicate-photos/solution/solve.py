import hashlib
from pathlib import Path

cam = Path("camera")
seen = set()
moved = 0
(cam / "duplicates").mkdir(exist_ok=True)
for p in sorted(cam.glob("*.jpg")):
    digest = hashlib.sha256(p.read_bytes()).hexdigest()
    if digest in seen:
        p.rename(cam / "duplicates" / p.name)
        moved += 1
    else:
        seen.add(digest)
print(f"moved={moved}")
