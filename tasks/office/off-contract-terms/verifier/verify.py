"""Grade off-contract-terms.

The answer gives ``value=<EUR>`` and ``end=<date>``: the total contract value stated in the
agreement (EUR 70,900.00) and the last day of the 30-month term that starts on 1 April 2024
(2026-09-30; the day after, 2026-10-01, is the classic off-by-one). The agreement must be left
as it was.
"""

import datetime
import hashlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Date, Number, answer, check_files, expect, fields, main, pristine_path

DOC = "service_agreement.docx"
SPEC = {"value": Number(tol_abs=0.005, units=("EUR",)), "end": Date()}
WANT = {"value": 70900.00, "end": datetime.date(2026, 9, 30)}


def check() -> str:
    check_files(unchanged={DOC: hashlib.sha256(pristine_path(DOC).read_bytes()).hexdigest()})
    return expect(fields(answer(), SPEC), WANT, SPEC)


main(check)
