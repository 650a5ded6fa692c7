"""Verifier for lf-longest-thread: the longest thread by reply headers, in date order.

Expected file names in expected.json (written by tasks/_build/gen_more.py). Grouping by
subject instead gives the 8 "Hello" messages (two separate threads) or splits the garage-sale
thread, whose later replies changed the subject; the answer must name the root's subject
"Garage sale on Saturday" and 7 messages. The mail folder must be left as it was.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import (
    Fail,
    Number,
    Text,
    answer,
    check_files,
    fields,
    main,
    pristine_manifest,
    read_text,
)

THREAD = [str(n) for n in json.loads((Path(__file__).resolve().parent / "expected.json").read_text())]
SUBJECT = "Garage sale on Saturday"


def check() -> str:
    check_files(unchanged=pristine_manifest("mail"))
    listed = [line.strip() for line in read_text("thread.txt").splitlines() if line.strip()]
    listed = [name.removeprefix("mail/") for name in listed]
    if listed != THREAD:
        raise Fail(f"thread.txt lists {listed[:10]}, expected the {len(THREAD)} garage-sale messages by date")
    spec = {"subject": Text(), "messages": Number(units=("messages", "mails", "emails"))}
    got = fields(answer(), spec)
    if not spec["subject"].matches(got["subject"], SUBJECT):
        raise Fail(f"subject {got['subject']!r} is not the thread root's {SUBJECT!r}")
    if got["messages"] != len(THREAD):
        raise Fail(f"messages={got['messages']}, expected {len(THREAD)}")
    return "longest thread reconstructed"


main(check)
