"""Grade mm-playlist-from-tags.

``road_trip.m3u`` must list ``music/<file>`` for exactly the songs whose artist tag is ``The
Quiet Harbour`` (not the cover band ``The Quiet Harbours``), in track-number order (recorded in
expected.json when the files were generated); ``#`` lines such as ``#EXTM3U`` are allowed. The
answer is ``songs=<count>``. The music files must be left as they were.
"""

import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Number, answer, check_files, expect, fields, main, pristine_path, read_text

TRACKS = [f"music/track_{n:02d}.mp3" for n in range(1, 13)]
SPEC = {"songs": Number(units=("songs", "tracks"))}


def check() -> str:
    want = ["music/" + name for name in json.loads((Path(__file__).parent / "expected.json").read_text())]
    check_files(
        unchanged={rel: hashlib.sha256(pristine_path(rel).read_bytes()).hexdigest() for rel in TRACKS}
    )
    text = read_text("road_trip.m3u")
    got = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if got != want:
        raise Fail(f"road_trip.m3u lists {got[:12]}, expected {want}")
    return expect(fields(answer(), SPEC), {"songs": len(want)}, SPEC)


main(check)
