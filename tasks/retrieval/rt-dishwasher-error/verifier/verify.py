"""Verifier for rt-dishwasher-error: what E-9440 means on an Aurex DW-60.

The corpus error table of the DW-60 maps E-9440 to the circulation pump; the log also shows the
heater switching on, a distractor. The answer is parsed as one of the table's components; the
appliance log must stay as it was.
"""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Choice, Fail, answer, check_files, expect, fields, main, read_text

LOG = {"dishwasher.log": "a1dfa51f3f1ebf17180a85c9b7c9fe2284613bd9feb7819bb5304fde9edd6fd1"}
COMPONENTS = (
    "circulation pump",
    "drain pump filter",
    "inlet valve",
    "heating element",
    "door latch sensor",
    "water softener unit",
    "temperature probe",
    "spray arm bearing",
    "control board fuse",
    "aqua-stop hose",
)
SPEC = {
    "component": Choice(
        *COMPONENTS,
        synonyms={
            "the circulation pump": "circulation pump",
            "circulation pump (E-9440)": "circulation pump",
        },
    )
}


def check() -> str:
    check_files(unchanged=LOG)
    lines = [line.strip() for line in read_text("service_request.txt").splitlines() if line.strip()]
    m = (
        re.fullmatch(r"(?i)E-9440\s*:\s*(?:the\s+)?circulation pump\.?", lines[0])
        if len(lines) == 1
        else None
    )
    if not m:
        raise Fail(
            f"service_request.txt has {lines[:3]}, expected the single line 'E-9440: circulation pump'"
        )
    return expect(fields(answer(), SPEC), {"component": "circulation pump"}, SPEC)


main(check)
