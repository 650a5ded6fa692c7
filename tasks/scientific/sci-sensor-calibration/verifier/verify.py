"""Grade sci-sensor-calibration.

``calibration.json`` must hold the ordinary least-squares fit of reference °C on raw counts
over the 40 calibration points (slope and intercept computed from the original CSV and written
here); fitting counts on °C and inverting, or a two-point line, gives a visibly different
slope. The answer is ``temperature=<°C>`` for a raw reading of 700 (21.5387 °C, two decimals
asked: a two-point line gives 21.56). The CSV must be left as it was.
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

CSV = "calibration_run.csv"
SLOPE = 0.048212431552474753
INTERCEPT = -12.21001070594108
AT_700 = SLOPE * 700 + INTERCEPT  # 21.5387
SPEC = {"temperature": Number(tol_abs=0.005, units=("°C", "ºC", "C", "degC", "degrees Celsius", "celsius"))}


def check() -> str:
    check_files(unchanged=pristine_sha256([CSV]))
    data = read_json("calibration.json")
    slope, intercept = (
        json_number(data, "slope", "calibration.json"),
        json_number(data, "intercept", "calibration.json"),
    )
    if abs(slope - SLOPE) > 1e-6 * abs(SLOPE) or abs(intercept - INTERCEPT) > 1e-4:
        raise Fail(f"calibration.json is slope={slope}, intercept={intercept}; not the least-squares fit")
    return expect(fields(answer(), SPEC), {"temperature": AT_700}, SPEC)


main(check)
