"""Verifier for rt-anthem-composer-town: island -> anthem -> composer -> birth town -> population.

Ostrava Minor's anthem was composed by Edda Marhaug, born in Brunhaven (population 21468,
census 2021). The letter must be the original draft (from the harness's pristine copy) with
only the placeholder replaced; the answer names the town and the population.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Name, Number, answer, expect, fields, main, pristine_path, read_text

TOWN = "Brunhaven"
POPULATION = 21468
SPEC = {"town": Name(), "population": Number(units=("people", "inhabitants", "residents"))}


def normalised(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").strip().split("\n"))


def check() -> str:
    draft = pristine_path("letter_draft.txt").read_text(encoding="utf-8")
    want = normalised(draft.replace("[POPULATION]", str(POPULATION)))
    if normalised(read_text("letter_draft.txt")) != want:
        raise Fail(f"letter_draft.txt is not the draft with [POPULATION] replaced by {POPULATION}")
    return expect(fields(answer(), SPEC), {"town": TOWN, "population": float(POPULATION)}, SPEC)


main(check)
