"""Grade term-sqlite-report.

``q1_spending.csv`` must list the joint account's Q1 spending per category (totals computed when
the database was generated, expected.json), largest first, two decimals; the database must be
left as it was; the answer names the top category as ``category=<name>``.
"""

import csv
import io
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import (
    Fail,
    Field,
    answer,
    check_files,
    fields,
    main,
    named_label,
    pristine_sha256,
    read_text,
)

AMOUNT = re.compile(r"^\d+\.\d\d$")


def check() -> str:
    want: dict[str, int] = json.loads((Path(__file__).parent / "expected.json").read_text())
    order = sorted(want.items(), key=lambda kv: -kv[1])
    check_files(unchanged=pristine_sha256(["household.db"]))
    rows = [r for r in csv.reader(io.StringIO(read_text("q1_spending.csv"), newline="")) if r]
    if not rows or [c.strip() for c in rows[0]] != ["category", "total_eur"]:
        raise Fail(f"q1_spending.csv header is {rows[:1]}, expected ['category', 'total_eur']")
    got: list[tuple[str, int]] = []
    for row in rows[1:]:
        if len(row) != 2 or not AMOUNT.match(row[1].strip()):
            raise Fail(f"q1_spending.csv row {row[:3]} is not `category,<amount with two decimals>`")
        euros, cents = row[1].strip().split(".")
        got.append((row[0].strip(), int(euros) * 100 + int(cents)))
    if got != order:
        raise Fail(f"q1_spending.csv is {got}, expected {order}")
    top = named_label(str(fields(answer(), {"category": Field()})["category"]), list(want))
    if top != order[0][0]:
        raise Fail(f"answer says category={top}, expected {order[0][0]}")
    return f"Q1 joint spending correct; top category {order[0][0]}"


main(check)
