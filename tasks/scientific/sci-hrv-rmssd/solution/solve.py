import json
import math
from pathlib import Path

rr = [int(l.split(",")[1]) for l in Path("rr_export.csv").read_text().splitlines() if l and l[0].isdigit()]
ok = [300 <= x <= 2000 for x in rr]
diffs = [rr[i + 1] - rr[i] for i in range(len(rr) - 1) if ok[i] and ok[i + 1]]
rmssd = math.sqrt(sum(d * d for d in diffs) / len(diffs))
valid = [x for x, o in zip(rr, ok) if o]
hr = 60000 / (sum(valid) / len(valid))
Path("hrv.json").write_text(json.dumps({"artifacts": ok.count(False), "rmssd_ms": rmssd, "mean_hr_bpm": hr}) + "\n")
print(f"rmssd={rmssd:.2f}\nmean_hr={hr:.2f}")
