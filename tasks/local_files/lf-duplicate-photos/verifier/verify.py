"""Verifier for lf-duplicate-photos: every byte-identical copy moved to camera/duplicates/.

The names to move are in expected.json (written by tasks/_build/gen_local_files.py): in each
group of identical files the smallest name stays. Every photo's bytes are compared with the
harness's pristine copy, so an emptied, altered or deleted photo fails, and nothing but the
duplicates may leave camera/.
"""

import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Number, answer, check_files, fields, main, pristine_path

DUPES = sorted(json.loads((Path(__file__).resolve().parent / "expected.json").read_text()))
ALBUMS = {"albums.txt": "bbf4f2c4551c5bca4c8ac4c347bc55a7d5ec68269083f6d30e39290038d1c31a"}


def listing(rel: str) -> list[str]:
    folder = Path(rel)
    if folder.is_symlink() or not folder.is_dir():
        raise Fail(f"{rel}/ is missing")
    links = [p.name for p in folder.iterdir() if p.is_symlink()]
    if links:
        raise Fail(f"{rel}/{links[0]} is a link, not the photo itself")
    return sorted(p.name for p in folder.iterdir())


def check() -> str:
    originals = sorted(p.name for p in pristine_path("camera").iterdir() if p.is_file())
    if len(originals) != 160:
        raise RuntimeError("no pristine copy of camera/")
    digest = {n: hashlib.sha256(pristine_path(f"camera/{n}").read_bytes()).hexdigest() for n in originals}
    kept = [n for n in originals if n not in DUPES]
    if listing("camera") != sorted([*kept, "duplicates"]):
        raise Fail("camera/ should hold exactly the kept photos and duplicates/")
    if listing("camera/duplicates") != DUPES:
        raise Fail(f"camera/duplicates/ should hold exactly the {len(DUPES)} later copies")
    unchanged = {f"camera/{n}": digest[n] for n in kept} | {
        f"camera/duplicates/{n}": digest[n] for n in DUPES
    }
    check_files(unchanged=unchanged | ALBUMS)
    moved = fields(answer(), {"moved": Number(units=("files", "photos", "duplicates"))})["moved"]
    if moved != len(DUPES):
        raise Fail(f"moved={moved}, expected {len(DUPES)}")
    return f"{len(DUPES)} duplicates moved"


main(check)
