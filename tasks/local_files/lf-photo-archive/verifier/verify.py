"""Verifier for lf-photo-archive: every picture and sidecar moved to archive/<YYYY>/<MM>/.

The destination of each file is in expected.json (written by tasks/_build/gen_more.py). Each
archived file's bytes are compared with the harness's pristine copy of camera_roll/, so emptied
or altered files fail; camera_roll/ must be empty (or gone) and archive/ hold nothing else.
"""

import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Number, answer, check_files, fields, main, pristine_path

PLAN = {
    str(k): str(v)
    for k, v in json.loads((Path(__file__).resolve().parent / "expected.json").read_text()).items()
}


def files_under(rel: str) -> list[str]:
    root = Path(rel)
    if root.is_symlink():
        raise Fail(f"{rel} is a link")
    if not root.exists():
        return []
    found = sorted(p for p in root.rglob("*") if not p.is_dir() or p.is_symlink())
    links = [p for p in found if p.is_symlink()]
    if links:
        raise Fail(f"{links[0]} is a link, not the file itself")
    return [p.relative_to(root).as_posix() for p in found]


def check() -> str:
    left = files_under("camera_roll")
    if left:
        raise Fail(f"{len(left)} files left in camera_roll/, e.g. {left[0]!r}")
    archived = files_under("archive")
    want = sorted(f"{folder}/{name}" for name, folder in PLAN.items())
    if archived != want:
        missing = sorted(set(want) - set(archived))[:3]
        extra = sorted(set(archived) - set(want))[:3]
        raise Fail(
            f"archive/ holds {len(archived)} files, expected {len(want)}; missing {missing}, unexpected {extra}"
        )
    original = {}
    for name in PLAN:
        source = pristine_path(f"camera_roll/{name}")
        original[name] = hashlib.sha256(source.read_bytes()).hexdigest()
    check_files(unchanged={f"archive/{folder}/{name}": original[name] for name, folder in PLAN.items()})
    n2023 = sum(1 for folder in PLAN.values() if folder.startswith("2023/"))
    got = fields(answer(), {"files_2023": Number(units=("files",))})["files_2023"]
    if got != n2023:
        raise Fail(f"files_2023={got}, expected {n2023} (pictures and sidecars)")
    return "camera roll archived by date"


main(check)
