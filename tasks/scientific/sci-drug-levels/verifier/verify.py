"""Grade sci-drug-levels.

One-compartment bolus model (V = 42 L, t1/2 = 6.5 h) over the five logged doses: C(36 h) =
13.1387 mg/L and the maximum over 0-48 h is 24.9130 mg/L right after the dose at 30 h (values
computed from the original inputs and written here). ``levels.json`` and the answer
(``c36=``, ``cmax=``, ``cmax_time=``) must match within 0.2 % (three decimals asked; using
k = 1/t1/2 instead of ln 2/t1/2, or the level just before a dose, is off by far more), the
peak time within 0.01 h. The model and the dosing log must be left as they were.
"""

import hashlib
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Number, answer, check_files, expect, fields, main, pristine_path, read_text

INPUTS = ("model.txt", "dosing_log.csv")
C36, CMAX, TMAX = 13.138699123502509, 24.913010413321018, 30.0
CONC = Number(tol_rel=0.002, units=("mg/L", "mg/l", "mg per L"))
HOURS = Number(tol_abs=0.01, units=("h", "hours", "hrs"))
SPEC = {"c36": CONC, "cmax": CONC, "cmax_time": HOURS}
WANT = {"c36": C36, "cmax": CMAX, "cmax_time": TMAX}


def number(data: object, key: str) -> float:
    value = data.get(key) if isinstance(data, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise Fail(f"levels.json has no number {key!r}")
    return float(value)


def check() -> str:
    check_files(
        unchanged={rel: hashlib.sha256(pristine_path(rel).read_bytes()).hexdigest() for rel in INPUTS}
    )
    try:
        data = json.loads(read_text("levels.json"))
    except json.JSONDecodeError:
        raise Fail("levels.json is not valid JSON") from None
    in_file = {
        "c36": number(data, "c36_mg_l"),
        "cmax": number(data, "cmax_mg_l"),
        "cmax_time": number(data, "cmax_time_h"),
    }
    for key, want in WANT.items():
        if not SPEC[key].matches(in_file[key], want):
            raise Fail(f"levels.json {key} is {in_file[key]}, expected {want:.3f}")
    return expect(fields(answer(), SPEC), WANT, SPEC)


main(check)
