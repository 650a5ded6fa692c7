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


import csv

best = json.loads((HERE / "expected.json").read_text())["best_points"]
items = {r["item"]: r for r in csv.DictReader(Path("shop_list.csv").read_text().splitlines())}
f = Path("basket.txt")
chosen = [l.strip() for l in f.read_text().splitlines() if l.strip()] if f.is_file() else []
if not chosen or len(set(chosen)) != len(chosen) or any(c not in items for c in chosen):
    finish(False, "basket.txt missing, has duplicates or unknown items")
if any(items[c]["contains_sesame"] == "yes" for c in chosen):
    finish(False, "basket contains sesame")
cents = sum(round(float(items[c]["price_eur"]) * 100) for c in chosen)
points = sum(int(items[c]["points"]) for c in chosen)
if cents > 25000:
    finish(False, f"basket costs {cents / 100:.2f} EUR")
if points != best:
    finish(False, f"basket is worth {points} points, the optimum is {best}")
if str(best) not in re.findall(r"\d+", ans):
    finish(False, "answer lacks the points")
finish(True, f"optimal basket, {best} points")
