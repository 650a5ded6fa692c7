"""calc-savings-goal: month-by-month projection until 50,000.00; reached 2028-08 at 50,730.43.

The plan fixes rounding to the cent at each step, so balances must match to the cent; the
mistakes the task tests for (deposit growth, withdrawal months, interest order) move them by
euros. Expected rows are in expected.json next to this file."""

import csv
import json
import re
from pathlib import Path

from agbench_grading import (
    MONTH_NAMES,
    Fail,
    Field,
    NoValue,
    Number,
    answer,
    check_files,
    expect,
    fields,
    main,
    read_text,
)

INPUTS = {"savings_plan.txt": "e3c6d411b6a63c3c47faff30a91077f250cdcfcda3512a3a317cc6aca85cf049"}


class Month(Field):
    """A calendar month: '2028-08', '2028/08', '08/2028', 'August 2028', 'Aug 2028'."""

    def parse(self, raw: str) -> object:
        s = re.sub(r"[*`\"'.,]", " ", raw).strip().lower()
        if not s:
            raise NoValue("no month given")
        if m := re.fullmatch(r"(\d{4})\s*[-/]\s*(\d{1,2})", s):
            year, month = int(m[1]), int(m[2])
        elif m := re.fullmatch(r"(\d{1,2})\s*[-/]\s*(\d{4})", s):
            year, month = int(m[2]), int(m[1])
        elif m := re.fullmatch(r"([a-z]+)\s+(\d{4})", s):
            names = [n for n in MONTH_NAMES if n.startswith(m[1]) and len(m[1]) >= 3]
            if len(names) != 1:
                raise Fail(f"not a month: {raw.strip()!r}")
            year, month = int(m[2]), MONTH_NAMES.index(names[0]) + 1
        else:
            raise Fail(f"not one month: {raw.strip()!r}")
        if not 1 <= month <= 12:
            raise Fail(f"not a month: {raw.strip()!r}")
        return f"{year:04d}-{month:02d}"


SPEC = {"month": Month(), "balance": Number(tol_abs=0.005)}


def check_projection(want: list[list[object]]) -> None:
    rows = list(csv.reader(read_text("projection.csv").splitlines()))
    if not rows or [c.strip().lower() for c in rows[0]] != ["month", "balance"]:
        raise Fail("projection.csv does not start with the header month,balance")
    body = [r for r in rows[1:] if any(c.strip() for c in r)]
    months = [r[0].strip() if r else "" for r in body]
    if months != [m for m, _ in want]:
        raise Fail(f"projection.csv covers {len(body)} months, expected {len(want)} ending {want[-1][0]}")
    for row, (month, balance) in zip(body, want, strict=True):
        try:
            value = float(row[1])
        except (IndexError, ValueError):
            raise Fail(f"projection.csv row {row} has no number") from None
        if abs(value - float(balance)) > 0.005:  # type: ignore[arg-type]
            raise Fail(f"projection.csv: {month} is {value}, expected {balance}")


def check() -> str:
    want = json.loads((Path(__file__).parent / "expected.json").read_text())
    check_projection(want)
    month, balance = want[-1]
    reason = expect(fields(answer(), SPEC), {"month": month, "balance": balance}, SPEC)
    check_files(unchanged=INPUTS)
    return "goal reached; " + reason


main(check)
