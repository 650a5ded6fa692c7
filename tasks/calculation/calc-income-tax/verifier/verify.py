"""calc-income-tax: taxable 69,150.00 -> tax 14,623.00; 14,100.00 withheld, so 523.00 is due.

Direction is checked, not only the amount: `refund=523.00` (the sign mistake) fails, and so
does an answer that gives both a `due` and a `refund`."""

from agbench_grading import Fail, Number, answer, check_files, expect, fields, main

INPUTS = {
    "annual_summary.txt": "f38b83c0125e0da53de815d200392441b5af4ece44bc07420f7a2c553c759c84",
    "tax_rules.txt": "c0580746110ffa2ffab607a6016ecec15d97fadbcddbfe651255109544056cb1",
}
AMOUNT = Number(tol_abs=0.005, units=("LVK",))


def present(key: str) -> bool:
    try:
        fields(answer(), {key: AMOUNT})
    except Fail as exc:
        return "has no" not in str(exc)  # a hedged or repeated value is still a claim
    return True


def check() -> str:
    text = answer()
    if present("refund"):
        raise Fail("the answer claims a refund; 523.00 is due")
    spec = {"tax": AMOUNT, "due": AMOUNT}
    reason = expect(fields(text, spec), {"tax": 14623.00, "due": 523.00}, spec)
    check_files(unchanged=INPUTS)
    return reason


main(check)
