"""Grade term-parse-duration.

The agent's ``parse_duration`` never runs inside this process: ``run_agent_code`` runs the
original tests (from the pristine inputs) and a driver over hidden inputs the agent never saw,
in a separate process; each result (an int, or ValueError) is compared here with the values
held below. The answer is the May invoice total as ``total=<EUR>`` (782.50, held here; the
smallest plausible mistake, one row's rounding or rate, moves it by far more than a cent).
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import (
    Fail,
    Number,
    answer,
    check_files,
    fields,
    main,
    pristine_path,
    pristine_sha256,
    run_driver,
    run_unittests,
)

INPUTS = ["timetrack/tests/test_duration.py", "timetrack/timesheet_2024-05.csv"]


TESTS = ["timetrack/tests/test_duration.py"]
MARK = "@@DURATION-GRADE@@"
DRIVER = f'''
import json, sys
sys.path.insert(0, "timetrack")
from timetrack import parse_duration
out = []
for text in json.loads(sys.stdin.read()):
    try:
        v = parse_duration(text)
        out.append(["int", v] if type(v) is int else ["not int", repr(v)[:60]])
    except ValueError:
        out.append(["ValueError"])
    except Exception as exc:
        out.append(["raised", repr(exc)[:100]])
print("{MARK}" + json.dumps(out))
'''
GOOD = {
    "1h30m": 5400, "90m": 5400, "1 h 30 min": 5400, "2 hours 5 seconds": 7205, "45s": 45, "1.5h": 5400,
    "0.25 hours": 900, " 3HRS ": 10800, "1hr 1min 1sec": 3661, "10 mins": 600, "1:30": 5400, "0:05:09": 309,
    "12:00:00": 43200, "PT1H30M": 5400, "pt45s": 45, "PT2M3S": 123, "PT1.5H": 5400, "25": 1500, "2.5": 150,
    "1m 0.4s": 60, "1m 0.6s": 61, "2 Hours": 7200, "3 hr 15 mins": 11700, "1 hour 1 minute 1 second": 3661,
    "\t7 min\n": 420, "0:00:30": 30, "PT0.5M": 30, "1.25": 75, "4 secs": 4,
    "2h 0m 0s": 7200, "PT10M": 600, "1 H 30 MIN": 5400,
}  # fmt: skip
BAD = [
    "", "  ", "soon", "-5", "-1h", "1h1h", "30m1h", "1:60", "1:5", "PT", "PT1H 30M x", "h", "1:30:75", "1x",
    "P1D", "1h 30", "5 m s", "PT1M30H", "1 hour 2 hours", "1.5.2h", "m", "1:30:", "ten minutes", "1h-30m",
]  # fmt: skip
INVOICE_EUR = 782.50


def check() -> str:
    check_files(unchanged=pristine_sha256(INPUTS))
    run_unittests(
        "timetrack", files={rel: pristine_path(rel).read_bytes() for rel in TESTS}, label="the original tests"
    )
    inputs = list(GOOD) + BAD
    got = run_driver(
        DRIVER,
        MARK,
        list,
        timed_out="hidden parse_duration checks timed out",
        incomplete="parse_duration did not run to the end of the hidden checks",
        stdin=json.dumps(inputs).encode(),
        copy=["timetrack"],
    )
    if len(got) != len(inputs):
        raise Fail("hidden parse_duration checks returned the wrong number of results")
    wrong = [text for text, res in zip(GOOD, got[: len(GOOD)], strict=True) if res != ["int", GOOD[text]]]
    wrong += [text for text, res in zip(BAD, got[len(GOOD) :], strict=True) if res != ["ValueError"]]
    if wrong:
        raise Fail(f"parse_duration wrong for {len(wrong)} hidden inputs, e.g. {wrong[:4]}")
    total = fields(answer(), {"total": Number(tol_abs=0.005, units=("EUR", "€", "euro", "euros"))})["total"]
    if not Number(tol_abs=0.005).matches(total, INVOICE_EUR):
        raise Fail(f"answer says total={total:g}, expected {INVOICE_EUR:.2f} EUR")
    return f"parse_duration correct on {len(inputs)} hidden inputs; May invoice {INVOICE_EUR:.2f} EUR"


main(check)
