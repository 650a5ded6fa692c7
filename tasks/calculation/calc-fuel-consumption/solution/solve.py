import csv
from pathlib import Path

rows = list(csv.DictReader(l for l in Path("fuel_log.csv").read_text().splitlines() if not l.startswith("#")))
full = [i for i, r in enumerate(rows) if r["full_tank"] == "yes"]
first, last = full[0], full[-1]
litres = sum(float(r["litres"]) for r in rows[first + 1:last + 1])
km = int(rows[last]["odometer_km"]) - int(rows[first]["odometer_km"])
print(f"consumption={litres / km * 100:.2f}")
