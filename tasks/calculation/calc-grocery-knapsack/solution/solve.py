import csv
from pathlib import Path

with open("shop_list.csv", newline="") as fh:
    items = [r for r in csv.DictReader(fh) if r["contains_sesame"] == "no"]
budget = 25000
prices = [round(float(r["price_eur"]) * 100) for r in items]
points = [int(r["points"]) for r in items]
best = [0] * (budget + 1)
take = []  # per item: the budgets at which taking it improved the optimum
for price, pts in zip(prices, points):
    took = bytearray(budget + 1)
    for b in range(budget, price - 1, -1):
        v = best[b - price] + pts
        if v > best[b]:
            best[b] = v
            took[b] = 1
    take.append(took)
chosen, b = [], budget
for i in range(len(items) - 1, -1, -1):
    if take[i][b]:
        chosen.append(items[i]["item"])
        b -= prices[i]
Path("basket.txt").write_text("".join(c + "\n" for c in reversed(chosen)))
print(f"points={best[budget]}")
