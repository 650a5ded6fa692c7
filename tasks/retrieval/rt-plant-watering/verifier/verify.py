"""Verifier for rt-plant-watering: summer watering intervals, most frequent first.

Intervals from the corpus care guides (summer values; the guides halve watering in winter).
The answer names the plant watered most often, parsed as one of the five plants; plants.txt
must stay as it was.
"""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Choice, Fail, answer, check_files, expect, fields, main, read_text

SCHEDULE = [
    ("Desert Lantern Cactus", 5),
    ("Marsh Bell Orchid", 10),
    ("Velvet Arrow Plant", 11),
    ("Silver Ribbon Fern", 17),
    ("Moonleaf Ivy", 21),
]
PLANTS = {"plants.txt": "ac65821f9a47ecce72d24f973e720c109d82cb916c9386fa346aa705e273fdcf"}
SPEC = {"most_often": Choice(*(name for name, _ in SCHEDULE))}


def check() -> str:
    check_files(unchanged=PLANTS)
    got = []
    for line in read_text("watering.txt").splitlines():
        if not line.strip():
            continue
        m = re.fullmatch(r"\s*(?:[-*]\s*)?(.+?)\s*:\s*every\s+(\d+)\s+days\.?\s*", line, re.IGNORECASE)
        if not m:
            raise Fail(f"watering.txt line {line[:80]!r} is not '<plant name>: every <N> days'")
        got.append((m.group(1), int(m.group(2))))
    if [(name.casefold(), n) for name, n in got] != [(name.casefold(), n) for name, n in SCHEDULE]:
        raise Fail(f"watering.txt has {got}, expected {SCHEDULE}")
    return expect(fields(answer(), SPEC), {"most_often": "Desert Lantern Cactus"}, SPEC)


main(check)
