"""Verifier for rt-home-office-deduction: Verdania's 2024 home office flat rate.

Expected values in expected.json (written by tasks/_build/gen_more.py): 7 EUR per full home day,
capped at 1500 EUR; home+office and sick days do not count (206 days -> 1442 EUR; counting the
5 mixed days gives 1477, the cap 1500). The work log must stay as it was.
"""

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Number, answer, check_files, expect, fields, main, read_text

EXPECTED = json.loads((Path(__file__).resolve().parent / "expected.json").read_text())
WORKDAYS = {"workdays_2024.csv": "291bc66546421829154f0cbac4c427112b4eb405546f4c10a7ed5d279da0e790"}
SPEC = {"deduction": Number(tol_abs=0.5, units=("EUR",))}


def check() -> str:
    check_files(unchanged=WORKDAYS)
    lines = [
        re.sub(r"\s*=\s*", "=", line.strip())
        for line in read_text("deduction.txt").splitlines()
        if line.strip()
    ]
    want = [f"days={EXPECTED['home_days']}", f"deduction={EXPECTED['deduction']}"]
    if lines != want:
        raise Fail(f"deduction.txt is {lines[:4]}, expected {want}")
    return expect(fields(answer(), SPEC), {"deduction": float(EXPECTED["deduction"])}, SPEC) + " EUR"


main(check)
