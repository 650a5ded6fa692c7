"""Grade mm-voice-memo-durations.

The answer gives ``total=<seconds>`` and ``longest=<title>``. The exact total is 15.359 s
(frames / each file's own sample rate); 0.05 s allows the requested one-decimal rounding, while
assuming one sample rate for all files is off by 0.7 s or more. The longest memo's INAM title
is "Bike lock" (expected.json). The recordings must be left as they were.
"""

import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Number, Text, answer, check_files, expect, fields, main, pristine_path  # noqa: E402

MEMOS = [f"recordings/memo_{n}.wav" for n in range(1, 7)]
EXACT_TOTAL_S = 15.35855  # sum of frames / rate over the six files, as generated
SPEC = {"total": Number(tol_abs=0.05, units=("s", "sec", "secs", "seconds")), "longest": Text()}


def check() -> str:
    want = json.loads((Path(__file__).parent / "expected.json").read_text())
    check_files(unchanged={rel: hashlib.sha256(pristine_path(rel).read_bytes()).hexdigest() for rel in MEMOS})
    return expect(fields(answer(), SPEC), {"total": EXACT_TOTAL_S, "longest": want["longest"]}, SPEC)


main(check)
