import json, subprocess, sys
from pathlib import Path

ANSWER = Path(__file__).parent / "answer.txt"
ans = ANSWER.read_text(errors="replace") if ANSWER.exists() else ""


def finish(ok, reason):
    print(json.dumps({"reward": 1.0 if ok else 0.0, "reason": reason}))
    sys.exit(0)


if len(ans) > 4000:  # a final answer, not a dump of every candidate value
    finish(False, "answer longer than 4000 characters")


tests = Path("budget/tests/test_core.py").read_text() if Path("budget/tests/test_core.py").is_file() else ""
if 'Decimal("3124.51")' not in tests or "def test_monthly_totals" not in tests:
    finish(False, "the tests were modified")
run = subprocess.run([sys.executable, "-m", "unittest", "discover", "-s", "tests"], cwd="budget",
                     capture_output=True, text=True, timeout=120)
if run.returncode != 0:
    finish(False, "unit tests fail: " + run.stderr.strip().splitlines()[-1][:120])
hidden = (
    "from decimal import Decimal\nfrom ledger import Entry, monthly_totals\n"
    "t = monthly_totals([Entry('2023-12-31','a',Decimal('1')), Entry('2024-01-10','b',Decimal('2')),"
    " Entry('2023-12-01','c',Decimal('-3'))])\n"
    "assert list(t) == ['2023-12', '2024-01'], t\nassert t['2023-12'] == Decimal('-2')\nprint('ok')\n"
)
run = subprocess.run([sys.executable, "-c", hidden], cwd="budget", capture_output=True, text=True, timeout=60)
if run.stdout.strip() != "ok":
    finish(False, "hidden check of monthly_totals failed")
if "monthly_totals" not in ans:
    finish(False, "answer does not name monthly_totals")
finish(True, "monthly_totals fixed")
