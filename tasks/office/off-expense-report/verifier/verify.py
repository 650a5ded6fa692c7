"""Grade off-expense-report.

The answer is ``travel_total=<EUR>``: the sum of the Travel rows of the spreadsheet, recorded in
expected.json when the sheet was generated. The smallest row is EUR 9.00, so a missed or extra
row is far outside the half-cent tolerance. The spreadsheet must be left as it was.
"""

import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Number, answer, check_files, fields, main, pristine_path

SHEET = "expenses_h1_2024.xlsx"
SPEC = {"travel_total": Number(tol_abs=0.005, units=("EUR",))}


def check() -> str:
    want = float(json.loads((Path(__file__).parent / "expected.json").read_text())["travel"])
    check_files(unchanged={SHEET: hashlib.sha256(pristine_path(SHEET).read_bytes()).hexdigest()})
    got = fields(answer(), SPEC)["travel_total"]
    if not SPEC["travel_total"].matches(got, want):
        raise Fail(f"travel_total={got}, expected {want:.2f}")
    return f"travel total {want:.2f}"


main(check)
