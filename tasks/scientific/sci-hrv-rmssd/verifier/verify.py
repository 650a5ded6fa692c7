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


import math

rr = [int(l.split(",")[1]) for l in Path("rr_export.csv").read_text().splitlines() if l and l[0].isdigit()]
ok = [300 <= x <= 2000 for x in rr]
diffs = [rr[i + 1] - rr[i] for i in range(len(rr) - 1) if ok[i] and ok[i + 1]]
rmssd = math.sqrt(sum(d * d for d in diffs) / len(diffs))
valid = [x for x, o in zip(rr, ok) if o]
hr = 60000 / (sum(valid) / len(valid))
try:
    got = json.loads(Path("hrv.json").read_text())
    good = (int(got["artifacts"]) == ok.count(False) and abs(float(got["rmssd_ms"]) - rmssd) <= 0.05
            and abs(float(got["mean_hr_bpm"]) - hr) <= 0.05)
except Exception:
    good = False
if not good:
    finish(False, f"hrv.json missing or wrong (want artifacts={ok.count(False)}, rmssd={rmssd:.2f}, hr={hr:.2f})")
nums = [float(x) for x in re.findall(r"\d+(?:\.\d+)?", ans)]
if not any(abs(n - rmssd) <= 0.06 for n in nums) or not any(abs(n - hr) <= 0.06 for n in nums):
    finish(False, "answer lacks RMSSD and mean heart rate")
finish(True, f"RMSSD {rmssd:.1f} ms, HR {hr:.1f} bpm")
