"""Verifier for rt-expense-fx: travel expenses converted at each month's reference rate.

Expected total in expected.json (written by tasks/_build/gen_more.py). Rounding each converted
line to the cent moves the total by at most a few cents, so 0.05 EUR is accepted; one month's
rate for everything (4008.38) or multiplying by the rate (18442.81) is far off. The expense
list must stay as it was.
"""

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Number, answer, check_files, expect, fields, main, read_text

TOTAL = float(json.loads((Path(__file__).resolve().parent / "expected.json").read_text())["total_eur"])
EXPENSES = {"travel_expenses.csv": "5124a0cb9b030dba5e5acbf23d2052069498e17b87b358d04b72f13ee2530d6c"}
SPEC = {"total": Number(tol_abs=0.05, units=("EUR",))}


def check() -> str:
    check_files(unchanged=EXPENSES)
    written = read_text("reimbursement.txt").strip()
    if not re.fullmatch(r"\d+\.\d{2}", written) or abs(float(written) - TOTAL) > 0.05:
        raise Fail(f"reimbursement.txt has {written[:40]!r}, expected {TOTAL:.2f} (two decimals)")
    return expect(fields(answer(), SPEC), {"total": TOTAL}, SPEC) + " EUR"


main(check)
