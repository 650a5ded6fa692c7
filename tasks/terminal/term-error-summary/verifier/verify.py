"""Grade term-error-summary.

``errors.txt`` must hold ``<service> <count>`` for every service, most errors first (ties by
name), with the counts computed when the logs were generated (expected.json); the answer names
the top service as ``service=<name>``.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import (
    Fail,
    Field,
    answer,
    check_files,
    fields,
    main,
    named_label,
    pristine_sha256,
    read_text,
)

INPUTS = [f"logs/{s}.log" for s in ("backup", "mail", "photos", "sync", "web")]


def check() -> str:
    check_files(unchanged=pristine_sha256(INPUTS))
    want: dict[str, int] = json.loads((Path(__file__).parent / "expected.json").read_text())
    order = sorted(want.items(), key=lambda kv: (-kv[1], kv[0]))
    got = [tuple(line.split()) for line in read_text("errors.txt").splitlines() if line.strip()]
    if got != [(s, str(n)) for s, n in order]:
        raise Fail(f"errors.txt is {got[:6]}, expected {order}")
    top = named_label(str(fields(answer(), {"service": Field()})["service"]), list(want))
    if top != order[0][0]:
        raise Fail(f"answer says service={top}, expected {order[0][0]}")
    return f"error counts correct; most errors: {order[0][0]}"


main(check)
