"""Grade off-payroll-march.

``payroll_march.csv`` must hold ``id,name,gross`` with one row per employee sorted by id and each
March gross (hours x rate, rounded to the cent; recorded in expected.json when the workbook was
generated) to the cent; the answer is ``total_gross=<EUR>``, the sum of those rounded amounts.
Counting another month's hours moves a person's gross by at least EUR 79, far outside the
half-cent tolerance. The workbook must be left as it was.
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
    Name,
    Number,
    answer,
    check_files,
    expect,
    fields,
    main,
    parse_number,
    pristine_path,
    read_text,
)

BOOK = "payroll_2024.xlsx"
NAMES = {"E101": "Sofia Lindgren", "E102": "Mateo Alvarez", "E103": "Chloe Dubois", "E104": "Yusuf Demir"}
SPEC = {"total_gross": Number(tol_abs=0.005, units=("EUR",))}
CENT = Number(tol_abs=0.005)


def check() -> str:
    gross = {
        k: float(v) for k, v in json.loads((Path(__file__).parent / "expected.json").read_text()).items()
    }
    check_files(unchanged={BOOK: hashlib.sha256(pristine_path(BOOK).read_bytes()).hexdigest()})
    rows = [r for r in csv.reader(io.StringIO(read_text("payroll_march.csv"), newline="")) if r]
    if not rows or [c.strip().casefold() for c in rows[0]] != ["id", "name", "gross"]:
        raise Fail(f"payroll_march.csv header is {rows[:1]}, expected id,name,gross")
    ids = [r[0].strip() for r in rows[1:]]
    if ids != sorted(gross):
        raise Fail(f"payroll_march.csv ids are {ids[:10]}, expected {sorted(gross)}")
    for row in rows[1:]:
        if len(row) != 3:
            raise Fail(f"payroll_march.csv row {row[:4]} does not have 3 columns")
        pid, name, amount = (c.strip() for c in row)
        if Name.normalise(name) != Name.normalise(NAMES[pid]):
            raise Fail(f"{pid} is {NAMES[pid]}, not {name!r}")
        if not CENT.matches(parse_number(amount), gross[pid]):
            raise Fail(f"gross for {pid} is {amount}, expected {gross[pid]:.2f}")
    total = round(sum(gross.values()), 2)
    return expect(fields(answer(), SPEC), {"total_gross": total}, SPEC)


main(check)
