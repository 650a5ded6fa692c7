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


p = json.loads(Path("outbreak.json").read_text())
N, b, g = p["population"], p["beta_per_day"], p["gamma_per_day"]
S, I, R = N - p["initially_infected"] - p["initially_recovered"], float(p["initially_infected"]), float(p["initially_recovered"])
h = 0.01
f = lambda s, i: (-b * s * i / N, b * s * i / N - g * i)
peak_i, peak_t = I, 0.0
for step in range(int(p["horizon_days"] / h)):
    k1 = f(S, I)
    k2 = f(S + h / 2 * k1[0], I + h / 2 * k1[1])
    k3 = f(S + h / 2 * k2[0], I + h / 2 * k2[1])
    k4 = f(S + h * k3[0], I + h * k3[1])
    S += h / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
    I += h / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
    if I > peak_i:
        peak_i, peak_t = I, (step + 1) * h
R = N - S - I
try:
    got = json.loads(Path("sir.json").read_text())
    good = (abs(float(got["peak_day"]) - peak_t) <= 0.15 and abs(float(got["peak_infected"]) - peak_i) <= 0.005 * peak_i
            and abs(float(got["recovered_at_horizon"]) - R) <= 0.005 * R)
except Exception:
    good = False
if not good:
    finish(False, f"sir.json missing or wrong (peak {peak_i:.1f} on day {peak_t:.2f}, R={R:.1f})")
nums = [float(x) for x in re.findall(r"\d+(?:\.\d+)?", ans.replace(",", ""))]
if not any(abs(n - peak_t) <= 0.15 for n in nums) or not any(abs(n - peak_i) <= 0.005 * peak_i for n in nums):
    finish(False, "answer lacks the peak day and size")
finish(True, f"peak {peak_i:.0f} infected on day {peak_t:.1f}")
