"""calc-fuel-consumption: full-to-full consumption, 197.2 l over 3445 km = 5.72 l/100 km.

The tolerance (half a cent of a litre) is far below the mistakes this task tests for:
counting the first fill-up's 41.2 l gives 6.92, leaving out the partial fills gives 4.65."""

from agbench_grading import Number, answer, check_files, expect, fields, main

INPUTS = {"fuel_log.csv": "d0655b1c274bc58733a44cd844e04b23034937951c3cd76cb45155c377fc89b6"}
UNITS = (
    "l/100 km",
    "l/100km",
    "l per 100 km",
    "litres per 100 km",
    "liters per 100 km",
    "litres/100 km",
    "liters/100 km",
)
SPEC = {"consumption": Number(tol_abs=0.005, units=UNITS)}
EXPECTED = {"consumption": 5.72}


def check() -> str:
    got = fields(answer(), SPEC)
    reason = expect(got, EXPECTED, SPEC)
    check_files(unchanged=INPUTS)
    return reason + " l/100 km"


main(check)
