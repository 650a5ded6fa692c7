"""Grade term-distinct-users.

``user_stats.txt`` must hold the two exact lines and the answer both counts as
``distinct_users=<n>`` and ``buyers=<n>``; the counts were computed once from the generator and
are held in expected.json (an edited generator in /work cannot move them).
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Number, answer, check_files, fields, main, pristine_sha256, read_text

INPUTS = ["events/gen_events.py"]


def check() -> str:
    check_files(unchanged=pristine_sha256(INPUTS))
    want: dict[str, int] = json.loads((Path(__file__).parent / "expected.json").read_text())
    lines = [line.strip() for line in read_text("user_stats.txt").splitlines() if line.strip()]
    expected_lines = [f"distinct_users={want['distinct_users']}", f"buyers={want['buyers']}"]
    if lines != expected_lines:
        raise Fail(f"user_stats.txt is {lines[:4]}, expected {expected_lines}")
    got = fields(answer(), {"distinct_users": Number(), "buyers": Number()})
    for key in ("distinct_users", "buyers"):
        if got[key] != want[key]:
            raise Fail(f"answer says {key}={got[key]:g}, expected {want[key]}")
    return f"distinct_users={want['distinct_users']}, buyers={want['buyers']}"


main(check)
