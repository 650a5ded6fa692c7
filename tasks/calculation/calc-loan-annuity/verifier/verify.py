"""calc-loan-annuity: 18,500.00 at 5.90 % over 48 months -> payment 433.63, interest 2,314.24.

To the cent: interest from the unrounded payment (a typical slip) is off by more than that."""

from agbench_grading import Number, answer, check_files, expect, fields, main

INPUTS = {"loan_offer.txt": "c867811536c2777394fb3efb5fc3d2dc79628547e0a318324c9d09e4f70ec239"}
SPEC = {"payment": Number(tol_abs=0.005), "interest": Number(tol_abs=0.005)}


def check() -> str:
    reason = expect(fields(answer(), SPEC), {"payment": 433.63, "interest": 2314.24}, SPEC)
    check_files(unchanged=INPUTS)
    return reason


main(check)
