import json
import re
from pathlib import Path

secrets = json.loads(Path("secrets.json").read_text())
lines, missing = [], []
for raw in Path(".env.example").read_text().splitlines():
    m = re.match(r"\s*([A-Z0-9_]+)=([^#]*?)\s*(#.*)?$", raw)
    if not m:
        continue
    key, default, comment = m.group(1), m.group(2).strip(), m.group(3) or ""
    value = secrets.get(key, default)
    if not value and "required" in comment:
        missing.append(key)
    lines.append(f"{key}={value}")
Path(".env").write_text("\n".join(lines) + "\n")
print("missing=" + ", ".join(missing))
