"""Grade mm-photos-near-home.

``near_home.txt`` must list, sorted by name, exactly the photos whose EXIF position is within
500 m of home (names and distances recorded in expected.json when the photos were generated;
the nearest photo outside the radius is kilometres away, so the list tests reading the GPS
tags, not rounding). The answer is ``photos=<count>``. The photos must all still be there
and still the same pictures (stripping their location afterwards is the user's plan, so their
metadata may change, but not their image data: a photo overwritten with a byte fails) and
``home.txt`` must be left as it was.
"""

import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Number, answer, check_files, expect, fields, main, pristine_path, read_bytes, read_text

PHOTOS = [f"photos/DSC_{n}.jpg" for n in range(2040, 2054)]
SPEC = {"photos": Number(units=("photos", "files", "pictures"))}


def image_data(jpeg: bytes) -> bytes | None:
    """The picture itself: a JPEG's bytes from its first start-of-scan marker on (metadata
    segments before it, EXIF and GPS among them, may be stripped); None when it is no JPEG."""
    if not jpeg.startswith(b"\xff\xd8") or not jpeg.rstrip(b"\x00").endswith(b"\xff\xd9"):
        return None
    sos = jpeg.find(b"\xff\xda")
    return jpeg[sos:] if sos > 0 else None


def check() -> str:
    want = sorted(name for name, _ in json.loads((Path(__file__).parent / "expected.json").read_text()))
    check_files(
        must_exist=PHOTOS,
        unchanged={"home.txt": hashlib.sha256(pristine_path("home.txt").read_bytes()).hexdigest()},
    )
    for rel in PHOTOS:
        data = read_bytes(rel, limit=20_000_000)
        original = pristine_path(rel).read_bytes()
        if data != original and image_data(data) != image_data(original):
            raise Fail(f"{rel} is no longer the photo it was (its image data changed)")
    got = [line.strip() for line in read_text("near_home.txt").splitlines() if line.strip()]
    if got != want:
        raise Fail(f"near_home.txt lists {got[:20]}, expected {want}")
    return expect(fields(answer(), SPEC), {"photos": len(want)}, SPEC)


main(check)
