"""Grade sci-hrv-rmssd.

From the original export (values written to expected.json by the build script): 25 artifacts outside
300-2000 ms, rmssd 36.2549 ms over differences of originally adjacent valid intervals, mean HR
73.1842 bpm. Differencing across a dropped interval gives rmssd 36.3018, only 0.047 away, so
``hrv.json`` is held to 0.01 and the answer (``rmssd=``, ``mean_hr=``, two decimals) to 0.006.
The export must be left as it was.
"""

import hashlib
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Number, answer, check_files, expect, fields, main, pristine_path, read_text

CSV = "rr_export.csv"
IN_FILE = Number(tol_abs=0.01)
SPEC = {
    "rmssd": Number(tol_abs=0.006, units=("ms",)),
    "mean_hr": Number(tol_abs=0.006, units=("bpm", "/min")),
}


def number(data: object, key: str) -> float:
    value = data.get(key) if isinstance(data, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise Fail(f"hrv.json has no number {key!r}")
    return float(value)


def check() -> str:
    want = json.loads((Path(__file__).parent / "expected.json").read_text())
    artifacts, rmssd, mean_hr = want["artifacts"], want["rmssd_ms"], want["mean_hr_bpm"]
    check_files(unchanged={CSV: hashlib.sha256(pristine_path(CSV).read_bytes()).hexdigest()})
    try:
        data = json.loads(read_text("hrv.json"))
    except json.JSONDecodeError:
        raise Fail("hrv.json is not valid JSON") from None
    if number(data, "artifacts") != artifacts:
        raise Fail(f"hrv.json artifacts={data.get('artifacts')}, expected {artifacts}")
    if not IN_FILE.matches(number(data, "rmssd_ms"), rmssd):
        raise Fail(f"hrv.json rmssd_ms={data.get('rmssd_ms')}, expected {rmssd:.3f}")
    if not IN_FILE.matches(number(data, "mean_hr_bpm"), mean_hr):
        raise Fail(f"hrv.json mean_hr_bpm={data.get('mean_hr_bpm')}, expected {mean_hr:.3f}")
    return expect(fields(answer(), SPEC), {"rmssd": rmssd, "mean_hr": mean_hr}, SPEC)


main(check)
