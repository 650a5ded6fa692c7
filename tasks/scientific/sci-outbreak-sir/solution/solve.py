import json
from pathlib import Path

p = json.loads(Path("outbreak.json").read_text())
N, beta, gamma = p["population"], p["beta_per_day"], p["gamma_per_day"]
y = [N - p["initially_infected"] - p["initially_recovered"], float(p["initially_infected"]), float(p["initially_recovered"])]
h = 0.005


def deriv(s, i, r):
    inf = beta * s * i / N
    return (-inf, inf - gamma * i, gamma * i)


peak = (0.0, y[1])
steps = int(round(p["horizon_days"] / h))
for n in range(steps):
    k1 = deriv(*y)
    k2 = deriv(*(a + h / 2 * b for a, b in zip(y, k1)))
    k3 = deriv(*(a + h / 2 * b for a, b in zip(y, k2)))
    k4 = deriv(*(a + h * b for a, b in zip(y, k3)))
    y = [a + h / 6 * (b1 + 2 * b2 + 2 * b3 + b4) for a, b1, b2, b3, b4 in zip(y, k1, k2, k3, k4)]
    if y[1] > peak[1]:
        peak = ((n + 1) * h, y[1])
out = {"peak_day": peak[0], "peak_infected": peak[1], "recovered_at_horizon": y[2]}
Path("sir.json").write_text(json.dumps(out) + "\n")
print(f"peak_day={peak[0]:.1f}\npeak_infected={peak[1]:.1f}\nrecovered={y[2]:.1f}")
