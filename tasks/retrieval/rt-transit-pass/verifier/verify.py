"""Verifier for rt-transit-pass: which option is cheaper for three days in Valdmoor, and by how much.

Fares (corpus page transit/valdmoor): day pass 9.80 EUR, 72-hour visitor pass 25.60 EUR, so the
72-hour pass saves 3 x 9.80 - 25.60 = 3.80 EUR. Picking the day passes (the wrong direction)
or any other saving fails; the saving must be right to the cent.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Choice, Number, answer, expect, fields, main

SPEC = {
    "cheaper": Choice(
        "72-hour pass",
        "day passes",
        synonyms={
            "72-hour visitor pass": "72-hour pass",
            "72 hour pass": "72-hour pass",
            "72h pass": "72-hour pass",
            "72-hour": "72-hour pass",
            "the 72-hour pass": "72-hour pass",
            "one 72-hour pass": "72-hour pass",
            "one 72-hour visitor pass": "72-hour pass",
            "three day passes": "day passes",
            "3 day passes": "day passes",
            "day pass": "day passes",
        },
    ),
    "saving": Number(tol_abs=0.005, units=("EUR",)),
}


def check() -> str:
    return expect(fields(answer(), SPEC), {"cheaper": "72-hour pass", "saving": 3.80}, SPEC)


main(check)
