"""Grade term-fix-ledger-bug.

The agent's library never runs inside this process: ``run_agent_code`` runs the original tests
(from the pristine inputs) and a driver on hidden entries the agent never saw in a separate
process, and the driver's results are compared here with the values held below. The tests in
/work must be unchanged; the answer is ``function=monthly_totals``.
"""

import hashlib
import json
import re
import sys
from decimal import Decimal, InvalidOperation
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import (
    Fail,
    Field,
    answer,
    check_files,
    fields,
    main,
    pristine_path,
    run_driver,
    run_unittests,
)

TESTS = ["budget/tests/test_core.py", "budget/tests/export.csv"]
MARK = "@@LEDGER-GRADE@@"
DRIVER = f'''
import json, sys
sys.path.insert(0, "budget")
from decimal import Decimal
from ledger import Entry, monthly_totals, parse_csv
cases = json.loads(sys.stdin.read())
out = {{"totals": [], "parsed": None}}
for entries in cases["totals"]:
    try:
        t = monthly_totals([Entry(d, p, Decimal(a)) for d, p, a in entries])
        out["totals"].append([[str(k), str(v)] for k, v in t.items()])
    except Exception as exc:
        out["totals"].append(repr(exc)[:200])
try:
    out["parsed"] = [[e.date, e.payee, str(e.amount)] for e in parse_csv("_grade/hidden.csv")]
except Exception as exc:
    out["parsed"] = repr(exc)[:200]
print("{MARK}" + json.dumps(out))
'''
HIDDEN_CSV = "date;payee;amount\n2024-06-01;Bakery;-3,40\n2024-06-02;Refund;12,00\n"
TOTALS_CASES = [
    [["2023-12-31", "a", "1"], ["2024-01-10", "b", "2"], ["2023-12-01", "c", "-3"]],
    [
        ["2024-11-05", "x", "10.50"],
        ["2024-02-29", "y", "-0.25"],
        ["2024-11-30", "z", "-10.50"],
        ["2024-02-01", "w", "100"],
    ],
    [["2025-03-09", "solo", "-42.10"]],
    [],
    [
        ["2024-10-01", "o", "5"],
        ["2024-09-30", "s", "7"],
        ["2024-10-31", "o2", "-1"],
        ["2024-01-01", "j", "0.01"],
    ],
]
TOTALS_WANT = [
    [("2023-12", "-2"), ("2024-01", "2")],
    [("2024-02", "99.75"), ("2024-11", "0")],
    [("2025-03", "-42.10")],
    [],
    [("2024-01", "0.01"), ("2024-09", "7"), ("2024-10", "4")],
]
FUNCTION = "monthly_totals"
LIBRARY_FUNCTIONS = {"monthly_totals", "parse_csv", "Entry"}


def decimal_or_none(s: str) -> Decimal | None:
    try:
        return Decimal(s)
    except (InvalidOperation, ValueError):
        return None


def check() -> str:
    originals = {rel: pristine_path(rel).read_bytes() for rel in TESTS}
    check_files(unchanged={rel: hashlib.sha256(b).hexdigest() for rel, b in originals.items()})
    run_unittests("budget", files=originals)
    result = run_driver(
        DRIVER,
        MARK,
        dict,
        timed_out="hidden checks of the ledger timed out",
        incomplete="the ledger package did not run to the end of the hidden checks",
        stdin=json.dumps({"totals": TOTALS_CASES}).encode(),
        files={"_grade/hidden.csv": HIDDEN_CSV.encode()},
        copy=["budget"],
    )
    totals = result.get("totals")
    if not isinstance(totals, list) or len(totals) != len(TOTALS_WANT):
        raise Fail("hidden checks of monthly_totals returned nothing usable")
    for k, (got, want) in enumerate(zip(totals, TOTALS_WANT, strict=True)):
        if not isinstance(got, list) or [str(p[0]) if isinstance(p, list) else "" for p in got] != [
            m for m, _ in want
        ]:
            raise Fail(f"monthly_totals wrong on hidden case {k}: {str(got)[:120]}")
        if [decimal_or_none(str(p[1])) for p in got] != [Decimal(v) for _, v in want]:
            raise Fail(f"monthly_totals sums wrong on hidden case {k}: {str(got)[:120]}")
    parsed = result.get("parsed")
    want_parsed = [["2024-06-01", "Bakery", "-3.40"], ["2024-06-02", "Refund", "12.00"]]
    if not isinstance(parsed, list) or parsed != want_parsed:
        raise Fail(f"parse_csv no longer reads a bank export: {str(parsed)[:120]}")
    named = str(fields(answer(), {"function": Field()})["function"])
    functions = {w for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", named) if w in LIBRARY_FUNCTIONS}
    if functions != {FUNCTION}:
        raise Fail(f"answer says function={named[:80]!r}, expected {FUNCTION} only")
    return "monthly_totals fixed; tests and hidden checks pass"


main(check)
