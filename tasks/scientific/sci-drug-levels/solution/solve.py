import csv
import json
import math
from pathlib import Path

lines = [l for l in Path("dosing_log.csv").read_text().splitlines() if not l.startswith("#")]
doses = [(float(r["time_h"]), float(r["dose_mg"])) for r in csv.DictReader(lines)]
V, k = 42.0, math.log(2) / 6.5


def conc(t):
    return sum(d / V * math.exp(-k * (t - ti)) for ti, d in doses if ti <= t)


# between doses C only decays, so the maximum is right after one of the doses
tmax = max((ti for ti, _ in doses if ti <= 48), key=conc)
result = {"c36_mg_l": conc(36), "cmax_mg_l": conc(tmax), "cmax_time_h": tmax}
Path("levels.json").write_text(json.dumps(result) + "\n")
print(f"c36={result['c36_mg_l']:.3f}\ncmax={result['cmax_mg_l']:.3f}\ncmax_time={tmax:g}")
