"""Grade sci-drug-levels.

One-compartment bolus model (V = 42 L, t1/2 = 6.5 h) over the five logged doses: C(36 h) =
13.1387 mg/L and the maximum over 0-48 h is 24.9130 mg/L right after the dose at 30 h (values
computed from the original inputs and written here). ``levels.json`` and the answer
(``c36=``, ``cmax=``, ``cmax_time=``) must match within 0.2 % (three decimals asked; using
k = 1/t1/2 instead of ln 2/t1/2, or the level just before a dose, is off by far more), the
peak time within 0.01 h. The model and the dosing log must be left as they were.
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

INPUTS = ("model.txt", "dosing_log.csv")
C36, CMAX, TMAX = 13.138699123502509, 24.913010413321018, 30.0
CONC = Number(tol_rel=0.002, units=("mg/L", "mg/l", "mg per L"))
HOURS = Number(tol_abs=0.01, units=("h", "hours", "hrs"))
SPEC = {"c36": CONC, "cmax": CONC, "cmax_time": HOURS}
WANT = {"c36": C36, "cmax": CMAX, "cmax_time": TMAX}


def check() -> str:
    check_files(unchanged=pristine_sha256(INPUTS))
    data = read_json("levels.json")
    in_file = {
        "c36": json_number(data, "c36_mg_l", "levels.json"),
        "cmax": json_number(data, "cmax_mg_l", "levels.json"),
        "cmax_time": json_number(data, "cmax_time_h", "levels.json"),
    }
    for key, want in WANT.items():
        if not SPEC[key].matches(in_file[key], want):
            raise Fail(f"levels.json {key} is {in_file[key]}, expected {want:.3f}")
    return expect(fields(answer(), SPEC), WANT, SPEC)


main(check)
