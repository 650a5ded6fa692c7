"""calc-tou-electricity: March 2024 split into peak/off-peak kWh and the bill.

Expected values are in expected.json next to this file (never recomputed from /work). kWh to
0.01 and the bill to the cent: putting the 21:00 hour or weekend hours in peak moves them by
far more."""

import json
from pathlib import Path

from agbench_grading import Number, answer, check_files, expect, fields, main

INPUTS = {
    "meter_2024-03.csv": "f5f13d398da055479b863832da4fa6e1a4f8222cc40d3094d4807e8941de3de2",
    "tariff.txt": "d58e58bfd0b1262fde52a5a93987eb857f59e811ee8a4455a3ecd409ab703132",
}
SPEC = {
    "peak": Number(tol_abs=0.01, units=("kWh",)),
    "off peak": Number(tol_abs=0.01, units=("kWh",)),  # offpeak, off-peak, off_peak
    "total": Number(tol_abs=0.005),
}


def check() -> str:
    want = json.loads((Path(__file__).parent / "expected.json").read_text())
    expected = {"peak": want["peak_kwh"], "off peak": want["offpeak_kwh"], "total": want["total"]}
    reason = expect(fields(answer(), SPEC), expected, SPEC)
    check_files(unchanged=INPUTS)
    return reason


main(check)
