"""Verifier for lf-largest-downloads: the three largest files anywhere under downloads/.

Expected sizes and paths in expected.json (written by tasks/_build/gen_more.py). The folder must
be left as it was (compared with the harness's pristine copy): deleting the big file to "free
the disk" is not what was asked.
"""

import hashlib
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Field, answer, check_files, fields, main, pristine_path, read_text

TOP = [
    (str(p), int(s)) for p, s in json.loads((Path(__file__).resolve().parent / "expected.json").read_text())
]


HEDGE = re.compile(r"\b(or|maybe|perhaps|possibly|probably|either|unsure)\b|\?", re.IGNORECASE)


class RelPath(Field):
    """One relative path as written: quotes, backticks, './' and a leading 'downloads/' dropped."""

    def parse(self, raw: str) -> str:
        if HEDGE.search(raw):  # checked before notes in parentheses are dropped
            raise Fail(f"hedged answer {raw.strip()!r}")
        value = re.sub(r"\s*\([^()]*\)$", "", str(super().parse(raw))).strip("'\"")  # '(24576 bytes)'
        if re.search(r"\s|[,;|]", value):
            raise Fail(f"more than one candidate path in {raw.strip()!r}")
        return re.sub(r"^(?:\./)?(?:downloads/)?", "", value)


def pristine_manifest(folder: str) -> dict[str, str]:
    """rel path -> sha256 of every original file under `folder`, from the read-only pristine copy."""
    root = pristine_path(folder)
    files = sorted(p for p in root.rglob("*") if p.is_file())
    if not files:
        raise RuntimeError(f"no pristine copy of {folder}/")
    return {
        f"{folder}/{p.relative_to(root).as_posix()}": hashlib.sha256(p.read_bytes()).hexdigest()
        for p in files
    }


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
    path = fields(answer(), {"largest": RelPath()})["largest"]
    if path != TOP[0][0]:
        raise Fail(f"largest file answered as {path!r}, expected {TOP[0][0]}")
    return "three largest files found"


main(check)
