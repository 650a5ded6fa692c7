import re
from pathlib import Path

names = []
for p in sorted(Path("scans").glob("*.txt")):
    text = p.read_text()
    typ = re.search(r"^Type: (.+)$", text, re.M).group(1).strip().lower().replace(" ", "-")
    d, m, y = re.search(r"^Date: (\d\d)\.(\d\d)\.(\d{4})", text, re.M).groups()
    new = f"{y}-{m}-{d}_{typ}.txt"
    p.rename(p.with_name(new))
    names.append(new)
print(f"oldest={min(names)}")
