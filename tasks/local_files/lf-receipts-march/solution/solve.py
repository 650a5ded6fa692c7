import re
from pathlib import Path

total = 0
for p in sorted(Path("receipts").glob("*.txt")):
    t = p.read_text()
    if ".03.2024" not in t or "Kategorie: groceries" not in t or "4417" not in t:
        continue
    euros, cents = re.search(r"SUMME: (\d+),(\d\d)", t).groups()
    total += int(euros) * 100 + int(cents)
value = f"{total // 100}.{total % 100:02d}"
Path("march_groceries.txt").write_text(value + "\n")
print(f"total={value}")
