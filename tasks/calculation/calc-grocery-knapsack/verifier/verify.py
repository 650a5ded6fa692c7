"""calc-grocery-knapsack: a sesame-free basket within 250.00 EUR with the optimum 545 points.

Prices, points and allergens come from the pristine shop list (/pristine), never from /work:
an agent that edits shop_list.csv cannot change what its basket is worth."""

import csv
import json
from pathlib import Path

from agbench_grading import Fail, Number, answer, check_files, expect, fields, main, pristine_path, read_text

INPUTS = {"shop_list.csv": "581c488da7a17c642367d9fbee43e06a9b7711d5ff5808f8d86fd28f4ce0e6c5"}
SPEC = {"points": Number()}


def check() -> str:
    best = json.loads((Path(__file__).parent / "expected.json").read_text())["best_points"]
    items = {r["item"]: r for r in csv.DictReader(pristine_path("shop_list.csv").read_text().splitlines())}
    chosen = [line.strip() for line in read_text("basket.txt").splitlines() if line.strip()]
    if not chosen:
        raise Fail("basket.txt is empty")
    if len(set(chosen)) != len(chosen):
        raise Fail("basket.txt lists an item twice")
    unknown = [c for c in chosen if c not in items]
    if unknown:
        raise Fail(f"basket.txt has items not in the shop list: {unknown[:3]}")
    if any(items[c]["contains_sesame"] == "yes" for c in chosen):
        raise Fail("the basket contains sesame")
    cents = sum(round(float(items[c]["price_eur"]) * 100) for c in chosen)
    points = sum(int(items[c]["points"]) for c in chosen)
    if cents > 25000:
        raise Fail(f"the basket costs {cents / 100:.2f} EUR")
    if points != best:
        raise Fail(f"the basket is worth {points} points, the optimum is {best}")
    reason = expect(fields(answer(), SPEC), {"points": best}, SPEC)
    check_files(unchanged=INPUTS)
    return "optimal basket, " + reason


main(check)
