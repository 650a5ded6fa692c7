# Ranges from https://corpus.local/recalls/<model> (known facts; the corpus is not reachable here).
import csv
from pathlib import Path

recalls = {"Kettleson KX-2": (31367, 32364), "Lumora TL-40": (42608, 45019), "Vantor HB-9": (47461, 48660),
           "Sonnel PB-20": (20085, 23006), "Pixaro CAM-3": (44053, 45400), "Brightwell HF-1": (38416, 40293)}
lines = [l for l in Path("appliances.csv").read_text().splitlines() if not l.startswith("#")]
hit = []
for row in csv.DictReader(lines):
    lo, hi = recalls.get(row["model"], (1, 0))
    if lo <= int(row["serial"][2:]) <= hi:
        hit.append(row["item"])
Path("recalled.txt").write_text("".join(h + "\n" for h in hit))
print("recalled=" + ", ".join(hit))
