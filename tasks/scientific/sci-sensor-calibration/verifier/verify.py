import json, re, sys
from pathlib import Path

ANSWER = Path(__file__).parent / "answer.txt"
ans = ANSWER.read_text(errors="replace") if ANSWER.exists() else ""


def finish(ok, reason):
    print(json.dumps({"reward": 1.0 if ok else 0.0, "reason": reason}))
    sys.exit(0)


if len(ans) > 4000:  # a final answer, not a dump of every candidate value
    finish(False, "answer longer than 4000 characters")


rows = [l.split(",") for l in Path("calibration_run.csv").read_text().splitlines()[2:] if l.strip()]
xs = [float(r[0]) for r in rows]
ys = [float(r[1]) for r in rows]
n = len(xs)
mx, my = sum(xs) / n, sum(ys) / n
slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
intercept = my - slope * mx
try:
    cal = json.loads(Path("calibration.json").read_text())
    ok = abs(float(cal["slope"]) - slope) <= 1e-6 * max(1, abs(slope)) + 1e-7 and abs(float(cal["intercept"]) - intercept) <= 1e-4
except Exception:
    ok = False
if not ok:
    finish(False, "calibration.json missing or not the least-squares fit")
want = slope * 700 + intercept
nums = [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", ans)]
if not any(abs(v - want) <= 0.011 for v in nums):
    finish(False, f"answer lacks {want:.2f}")
finish(True, f"fit ok, 700 counts = {want:.2f} C")
