"""Grade mm-private-screenshots.

The screenshots tagged ``Sensitivity=private`` (recorded in expected.json when they were
generated) must have been moved, byte for byte, from ``screenshots/`` to ``private/``; the
others must still be in ``screenshots/`` unchanged, and neither folder may hold anything else
(a copy left behind, an emptied file or a deleted screenshot all fail). The answer is
``moved=<count>``.
"""

import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Number, answer, check_files, expect, fields, main, pristine_path

SPEC = {"moved": Number(units=("files", "screenshots"))}


def listing(folder: str) -> list[str]:
    path = Path(folder)
    if not path.is_dir() or path.is_symlink():
        raise Fail(f"{folder}/ is missing")
    return sorted(p.name for p in path.iterdir())


def check() -> str:
    private = sorted(json.loads((Path(__file__).parent / "expected.json").read_text()))
    originals = sorted(p.name for p in pristine_path("screenshots").iterdir())
    keep = [name for name in originals if name not in private]

    def digest(name: str) -> str:
        return hashlib.sha256(pristine_path(f"screenshots/{name}").read_bytes()).hexdigest()

    check_files(
        unchanged={f"private/{n}": digest(n) for n in private}
        | {f"screenshots/{n}": digest(n) for n in keep},
        must_be_gone=[f"screenshots/{n}" for n in private],
    )
    if (got := listing("private")) != private:
        raise Fail(f"private/ holds {got[:12]}, expected {private}")
    if (got := listing("screenshots")) != keep:
        raise Fail(f"screenshots/ holds {got[:12]}, expected {keep}")
    return expect(fields(answer(), SPEC), {"moved": len(private)}, SPEC)


main(check)
