"""Grade term-slow-pair-finder.

The agent's script runs only through ``run_agent_code`` (a separate process on a private copy of
/work) with amounts files it never saw; its printed count is compared here with the count of the
reference algorithm below. The data file must be left as it was, and the answer is
``pairs=<count>`` for the pristine data/amounts.txt (counted here from the pristine copy).
"""

import hashlib
import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Number, answer, check_files, fields, main, pristine_path, run_agent_code

DATA = "data/amounts.txt"
SCRIPT = "tools/find_pairs.py"
BANK = "tools/bank.ini"
TIMEOUT_S = 10.0  # the quadratic original needs hours on 200,000 amounts; a linear rewrite ~0.2 s


def reference(values: list[int], target: int) -> int:
    """Unordered pairs i < j with values[i] + values[j] == target, in linear time."""
    counts = Counter(values)
    total = 0
    for v, n in counts.items():
        w = target - v
        if w > v:
            total += n * counts.get(w, 0)
        elif w == v:
            total += n * (n - 1) // 2
    return total


def hidden_cases() -> list[tuple[list[int], int]]:
    rng = random.Random(4242)
    return [
        ([5, 5, 5, 1, 9, 10, 0], 10),
        ([7, 3, 3, 7, 5, 5, 5, 5, 2], 10),
        ([1, 2, 3], 100),
        ([500_000] * 1000 + [1, 999_999], 1_000_000),
        ([rng.randint(1, 400_000) for _ in range(200_000)], 400_000),
        ([rng.randint(1, 999_999) for _ in range(200_000)], 1_000_001),
    ]


def check() -> str:
    original = pristine_path(DATA).read_bytes()
    check_files(
        must_exist=[SCRIPT],
        unchanged={
            DATA: hashlib.sha256(original).hexdigest(),
            BANK: hashlib.sha256(pristine_path(BANK).read_bytes()).hexdigest(),
        },
    )
    for k, (values, target) in enumerate(hidden_cases()):
        name = f"_grade/case{k}.txt"
        run = run_agent_code(
            ["python3", SCRIPT, name, str(target)],
            files={name: "".join(f"{v}\n" for v in values).encode()},
            timeout_s=TIMEOUT_S,
            copy=["tools"],
        )
        if run.timed_out:
            raise Fail(f"find_pairs.py too slow on hidden case {k} ({len(values)} amounts)")
        want = reference(values, target)
        if run.stdout_text.strip() != str(want):
            raise Fail(f"find_pairs.py wrong on hidden case {k}: printed {run.stdout_text.strip()[:40]!r}")
    want_local = reference([int(x) for x in original.split()], 1_000_000)
    n = fields(answer(), {"pairs": Number()})["pairs"]
    if n != want_local:
        raise Fail(f"answer says pairs={n:g}, expected {want_local}")
    return f"fast and correct on 6 hidden cases; pairs={want_local}"


main(check)
