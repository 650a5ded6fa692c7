"""Grade off-budget-variance.

``variance.csv`` must list exactly the departments whose Q1 actuals exceed budget by more than
10 % (budget and actual totals recorded in expected.json when the workbook was generated),
largest overrun first, with integer budget/actual and the overrun in % to one decimal (0.051
allows the rounding, not a different formula: relative to actual instead of budget is off by
more than 4 points). Facilities, at +9.6 %, must not be listed. The answer names the department
with the largest overrun as ``department=<name>``. The workbook must be left as it was.
"""

import csv
import hashlib
import io
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import (
    Fail,
    Number,
    Text,
    answer,
    check_files,
    expect,
    fields,
    main,
    parse_number,
    pristine_path,
    read_text,
)

BOOK = "budget_q1_2024.xlsx"
PCT = Number(tol_abs=0.051, units=("%",))


def check() -> str:
    data: dict[str, list[int]] = json.loads((Path(__file__).parent / "expected.json").read_text())
    over = sorted(
        ((d, b, a, (a - b) / b * 100) for d, (b, a) in data.items() if a > b * 1.1), key=lambda x: -x[3]
    )
    check_files(unchanged={BOOK: hashlib.sha256(pristine_path(BOOK).read_bytes()).hexdigest()})
    rows = [r for r in csv.reader(io.StringIO(read_text("variance.csv"), newline="")) if r]
    if not rows or [c.strip().casefold() for c in rows[0]] != [
        "department",
        "budget",
        "actual",
        "overrun_pct",
    ]:
        raise Fail(f"variance.csv header is {rows[:1]}, expected department,budget,actual,overrun_pct")
    got = [r[0].strip() for r in rows[1:]]
    if got != [o[0] for o in over]:
        raise Fail(f"variance.csv departments {got[:10]}, expected {[o[0] for o in over]}")
    for row, (dept, budget, actual, pct) in zip(rows[1:], over, strict=True):
        if len(row) != 4:
            raise Fail(f"variance.csv row for {dept} does not have 4 columns")
        if parse_number(row[1]) != budget or parse_number(row[2]) != actual:
            raise Fail(f"budget/actual for {dept} are {row[1:3]}, expected {budget},{actual}")
        if not PCT.matches(parse_number(row[3], ("%",)), pct):
            raise Fail(f"overrun_pct for {dept} is {row[3]}, expected {pct:.1f}")
    spec = {"department": Text(choices=list(data))}
    return expect(fields(answer(), spec), {"department": over[0][0]}, spec)


main(check)
