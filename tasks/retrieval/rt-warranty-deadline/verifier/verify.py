"""Verifier for rt-warranty-deadline: the last day to file a Kettleson warranty claim.

Bought 2022-11-18 (receipt); the corpus terms give 30 months and make the last valid claim day
the day before the same calendar day 30 months later: 2025-05-17. The same calendar day
(2025-05-18) or a 24-month period (2024-11-17) is the mistake. The receipt must stay as it was.
"""

import datetime
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Date, Fail, answer, check_files, fields, main, read_text

DEADLINE = datetime.date(2025, 5, 17)
RECEIPT = {"receipt.txt": "d888d81ff764ed5bd8b921d2172310f6437dc9ec5dfea36abb3a5241908c539c"}


def check() -> str:
    check_files(unchanged=RECEIPT)
    written = read_text("claim_deadline.txt").strip()
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", written) or written != DEADLINE.isoformat():
        raise Fail(f"claim_deadline.txt has {written[:40]!r}, expected {DEADLINE.isoformat()}")
    got = fields(answer(), {"deadline": Date()})["deadline"]
    if got != DEADLINE:
        raise Fail(f"deadline {got} is not {DEADLINE}")
    return "30-month warranty: last claim day 2025-05-17"


main(check)
