"""Grade mm-voice-memo-durations.

The answer gives ``total=<seconds>`` and ``longest=<title>``. The exact total, 15.359 s
(frames / each file's own sample rate), and the longest memo's INAM title, "Bike lock", were
recorded in expected.json when the files were generated; 0.05 s allows the requested
one-decimal rounding, while assuming one sample rate for all files is off by 0.7 s or more.
The recordings must be left as they were.
"""

import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Number, Text, answer, check_files, expect, fields, main, pristine_path

MEMOS = [f"recordings/memo_{n}.wav" for n in range(1, 7)]
SPEC = {"total": Number(tol_abs=0.05, units=("s", "sec", "secs", "seconds")), "longest": Text()}


def check() -> str:
    want = json.loads((Path(__file__).parent / "expected.json").read_text())
    check_files(unchanged={rel: hashlib.sha256(pristine_path(rel).read_bytes()).hexdigest() for rel in MEMOS})
    return expect(fields(answer(), SPEC), {"total": want["total_exact_s"], "longest": want["longest"]}, SPEC)


main(check)
