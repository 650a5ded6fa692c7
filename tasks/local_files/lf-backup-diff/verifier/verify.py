"""Verifier for lf-backup-diff: changes.txt lists every A/D/M difference, sorted by path.

Expected changes in expected.json (written by tasks/_build/gen_more.py); the modified files keep
their size, so a size-only comparison misses them. Both folders must be left as they were
(compared with the harness's pristine copy), and the counts are checked by label.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Number, answer, check_files, fields, main, pristine_manifest, read_text

CHANGES = [
    (str(c), str(p)) for c, p in json.loads((Path(__file__).resolve().parent / "expected.json").read_text())
]
COUNTS = {"added": "A", "deleted": "D", "modified": "M"}


def check() -> str:
    check_files(unchanged=pristine_manifest("snapshot_2024-05-01") | pristine_manifest("current"))
    got = []
    for line in read_text("changes.txt").splitlines():
        if line.strip():
            parts = line.split(None, 1)
            if len(parts) != 2:
                raise Fail(f"changes.txt line {line[:80]!r} is not '<code> <path>'")
            got.append((parts[0], parts[1].strip()))
    if got != CHANGES:
        raise Fail(f"changes.txt has {len(got)} lines; expected {len(CHANGES)} specific lines sorted by path")
    spec = {key: Number(units=("files",)) for key in COUNTS}
    values = fields(answer(), spec)
    for key, code in COUNTS.items():
        want = sum(1 for c, _ in CHANGES if c == code)
        if float(values[key]) != want:
            raise Fail(f"{key}={values[key]}, expected {want}")
    return "diff correct: " + ", ".join(
        f"{k} {sum(1 for c, _ in CHANGES if c == v)}" for k, v in COUNTS.items()
    )


main(check)
