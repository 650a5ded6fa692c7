"""Grade sci-hrv-rmssd.

From the original export (values written to expected.json by the build script): 25 artifacts outside
300-2000 ms, rmssd 36.2549 ms over differences of originally adjacent valid intervals, mean HR
73.1842 bpm. Differencing across a dropped interval gives rmssd 36.3018, only 0.047 away, so
``hrv.json`` is held to 0.01 and the answer (``rmssd=``, ``mean_hr=``, two decimals) to 0.006.
The export must be left as it was.
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
    expect,
    fields,
    json_number,
    main,
    pristine_sha256,
    read_json,
)

CSV = "rr_export.csv"
IN_FILE = Number(tol_abs=0.01)
SPEC = {
    "rmssd": Number(tol_abs=0.006, units=("ms",)),
    "mean_hr": Number(tol_abs=0.006, units=("bpm", "/min")),
}


def check() -> str:
    want = json.loads((Path(__file__).parent / "expected.json").read_text())
    artifacts, rmssd, mean_hr = want["artifacts"], want["rmssd_ms"], want["mean_hr_bpm"]
    check_files(unchanged=pristine_sha256([CSV]))
    data = read_json("hrv.json")
    if json_number(data, "artifacts", "hrv.json") != artifacts:
        raise Fail(f"hrv.json artifacts={data.get('artifacts')}, expected {artifacts}")
    if not IN_FILE.matches(json_number(data, "rmssd_ms", "hrv.json"), rmssd):
        raise Fail(f"hrv.json rmssd_ms={data.get('rmssd_ms')}, expected {rmssd:.3f}")
    if not IN_FILE.matches(json_number(data, "mean_hr_bpm", "hrv.json"), mean_hr):
        raise Fail(f"hrv.json mean_hr_bpm={data.get('mean_hr_bpm')}, expected {mean_hr:.3f}")
    return expect(fields(answer(), SPEC), {"rmssd": rmssd, "mean_hr": mean_hr}, SPEC)


main(check)
