"""Grade mm-photos-near-home.

``near_home.txt`` must list, sorted by name, exactly the photos whose EXIF position is within
500 m of home (names and distances recorded in expected.json when the photos were generated;
the nearest photo outside the radius is kilometres away, so the list tests reading the GPS
tags, not rounding). The answer is ``photos=<count>``. The photos must all still be there
(stripping their location afterwards is the user's plan, so their bytes may change) and
``home.txt`` must be left as it was.
"""

import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Number, answer, check_files, expect, fields, main, pristine_path, read_text

PHOTOS = [f"photos/DSC_{n}.jpg" for n in range(2040, 2054)]
SPEC = {"photos": Number(units=("photos", "files", "pictures"))}


def check() -> str:
    want = sorted(name for name, _ in json.loads((Path(__file__).parent / "expected.json").read_text()))
    check_files(
        must_exist=PHOTOS,
        must_be_nonempty=PHOTOS,
        unchanged={"home.txt": hashlib.sha256(pristine_path("home.txt").read_bytes()).hexdigest()},
    )
    got = [line.strip() for line in read_text("near_home.txt").splitlines() if line.strip()]
    if got != want:
        raise Fail(f"near_home.txt lists {got[:20]}, expected {want}")
    return expect(fields(answer(), SPEC), {"photos": len(want)}, SPEC)


main(check)
