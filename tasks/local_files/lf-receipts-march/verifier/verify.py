"""Verifier for lf-receipts-march: March 2024 grocery spending on the VISA card ending 4417.

Expected total in expected.json (written by tasks/_build/gen_local_files.py). Receipts paid
with the other card, other months or other categories differ by at least 0.79 EUR, so the
answer must match to the cent. The receipts must be left as they were (compared with the
harness's pristine copy of the task's inputs).
"""

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Number, answer, check_files, fields, main, pristine_manifest, read_text

TOTAL = json.loads((Path(__file__).resolve().parent / "expected.json").read_text())["total"]


def check() -> str:
    check_files(unchanged=pristine_manifest("receipts"))
    written = read_text("march_groceries.txt").strip()
    if not re.fullmatch(r"\d+\.\d{2}", written) or written != TOTAL:
        raise Fail(f"march_groceries.txt has {written[:40]!r}, expected {TOTAL}")
    got = fields(answer(), {"total": Number(tol_abs=0.005, units=("EUR",))})
    if abs(float(got["total"]) - float(TOTAL)) > 0.005:
        raise Fail(f"answered total {got['total']} is not {TOTAL}")
    return f"total {TOTAL} EUR"


main(check)
