"""calc-split-trip: balances.csv for all four, and who gets the most back (Amara, 413.60)."""

import csv

from agbench_grading import Choice, Fail, Number, answer, check_files, expect, fields, main, read_text

INPUTS = {"trip_expenses.csv": "bcd825a673a6cf5f88b454dc771f050b7cf5e3adfc5f16c5930f6b7d9639db48"}
BALANCES = {"Amara": 413.60, "Bjorn": -142.30, "Chen": -131.80, "Dalia": -139.50}
SPEC = {"person": Choice(*BALANCES), "amount": Number(tol_abs=0.005)}


def check_balances() -> None:
    rows = list(csv.reader(read_text("balances.csv").splitlines()))
    if not rows or [c.strip().lower() for c in rows[0]] != ["name", "balance"]:
        raise Fail("balances.csv does not start with the header name,balance")
    body = [r for r in rows[1:] if any(c.strip() for c in r)]
    names = [r[0].strip() if r else "" for r in body]
    if names != sorted(BALANCES):
        raise Fail(f"balances.csv lists {names}, expected {sorted(BALANCES)}")
    for row in body:
        try:
            value = float(row[1])
        except (IndexError, ValueError):
            raise Fail(f"balances.csv row {row} has no number") from None
        if abs(value - BALANCES[row[0].strip()]) > 0.005:
            raise Fail(f"balance of {row[0].strip()} is {value}, expected {BALANCES[row[0].strip()]:.2f}")


def check() -> str:
    check_balances()
    reason = expect(fields(answer(), SPEC), {"person": "Amara", "amount": 413.60}, SPEC)
    check_files(unchanged=INPUTS)
    return "balances correct; " + reason


main(check)
