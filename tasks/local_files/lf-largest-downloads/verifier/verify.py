"""Verifier for lf-largest-downloads: the three largest files anywhere under downloads/.

Expected sizes and paths in expected.json (written by tasks/_build/gen_more.py). The folder must
be left as it was (compared with the harness's pristine copy): deleting the big file to "free
the disk" is not what was asked.
"""

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, RelPath, answer, check_files, fields, main, pristine_manifest, read_text

TOP = [
    (str(p), int(s)) for p, s in json.loads((Path(__file__).resolve().parent / "expected.json").read_text())
]


def check() -> str:
    check_files(unchanged=pristine_manifest("downloads"))
    got = []
    for line in read_text("largest.txt").splitlines():
        if not line.strip():
            continue
        m = re.fullmatch(r"\s*(\d+)\s+(.+?)\s*", line)
        if not m:
            raise Fail(f"largest.txt line {line[:80]!r} is not '<size> <path>'")
        got.append((m.group(2), int(m.group(1))))
    if got != TOP:
        raise Fail(f"largest.txt lists {got[:5]}, expected {TOP}")
    path = fields(answer(), {"largest": RelPath("downloads")})["largest"]
    if path != TOP[0][0]:
        raise Fail(f"largest file answered as {path!r}, expected {TOP[0][0]}")
    return "three largest files found"


main(check)
