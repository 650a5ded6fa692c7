"""Verifier for lf-mbox-practice: the practice's 2024 messages, by Date, from any of its addresses.

Expected subjects in expected.json (written by tasks/_build/gen_more.py). Counting 2023 as well
gives 65, one sender address only 27; the mbox must be left as it was.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Number, answer, check_files, fields, main, read_text

SUBJECTS = [str(s) for s in json.loads((Path(__file__).resolve().parent / "expected.json").read_text())]
MBOX = {"mail.mbox": "3ce0d731dbc0df16644232ff824a617c3f6561040889cd33af6a9b120080749d"}


def check() -> str:
    check_files(unchanged=MBOX)
    listed = [line.strip() for line in read_text("practice_2024.txt").splitlines() if line.strip()]
    if listed != SUBJECTS:
        raise Fail(f"practice_2024.txt has {len(listed)} subjects, expected {len(SUBJECTS)} in date order")
    got = fields(answer(), {"messages": Number(units=("messages", "mails", "emails"))})["messages"]
    if got != len(SUBJECTS):
        raise Fail(f"messages={got}, expected {len(SUBJECTS)}")
    return f"{len(SUBJECTS)} practice messages listed"


main(check)
