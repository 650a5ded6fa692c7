"""Grade sci-outbreak-sir.

SIR with N = 12000, I0 = 3, beta = 0.32/day, gamma = 0.1/day over 300 days, integrated with
RK4 at 0.001 day (values written here): infections peak on day 41.713 at 3889.12 infected, and
11430.82 have recovered by the horizon. Tolerances sit below the error of a coarse integration:
Euler at 0.1 day peaks on day 42.0 with 3905 infected and ends at 11437.8 recovered, so peak
day is held to 0.1 day, the peak to 0.2 % and the recovered count to 0.05 %. ``sir.json`` and
the answer (``peak_day=``, ``peak_infected=``, ``recovered=``) are both checked. The outbreak
description must be left as it was.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import (
    Fail,
    Number,
    answer,
    check_files,
    expect,
    fields,
    json_number,
    main,
    pristine_sha256,
    read_json,
)

INPUT = "outbreak.json"
PEOPLE = ("people", "persons", "infected", "recovered", "individuals")
SPEC = {
    "peak_day": Number(tol_abs=0.1, units=("days", "day", "d")),
    "peak_infected": Number(tol_rel=0.002, units=PEOPLE),
    "recovered": Number(tol_rel=0.0005, units=PEOPLE),
}
WANT = {"peak_day": 41.713, "peak_infected": 3889.122, "recovered": 11430.822}
FILE_KEYS = {"peak_day": "peak_day", "peak_infected": "peak_infected", "recovered": "recovered_at_horizon"}


def check() -> str:
    check_files(unchanged=pristine_sha256([INPUT]))
    data = read_json("sir.json")
    for key, file_key in FILE_KEYS.items():
        got = json_number(data, file_key, "sir.json")
        if not SPEC[key].matches(got, WANT[key]):
            raise Fail(f"sir.json {file_key}={got}, expected {WANT[key]}")
    return expect(fields(answer(), SPEC), WANT, SPEC)


main(check)
