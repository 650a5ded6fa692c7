"""Grade term-env-from-template.

``.env`` must hold exactly the template's keys in order with the right values (held here), and
the answer must name the one required variable still without a value: ``missing=BACKUP_TARGET``.
"""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Text, answer, fields, main, read_text

WANT = [
    "POSTGRES_USER=cloud",
    "POSTGRES_PASSWORD=gq7Vz!Lumen-4402",
    "POSTGRES_DB=cloud",
    "REDIS_HOST=redis",
    "ADMIN_EMAIL=sanna.virtanen@koti.example",
    "SMTP_HOST=mail.koti.example",
    "SMTP_PASSWORD=smtp-app-3f81aa20c9",
    "BACKUP_TARGET=",
    "TZ=Europe/Helsinki",
]
MISSING = "BACKUP_TARGET"


def variable_names(value: str) -> set[str]:
    """The variable names in the answer's value, however the Text field normalised it."""
    return {re.sub(r"[^a-z0-9]", "", w) for w in re.split(r"[\s,;]+", value.casefold()) if w.strip()}


def check() -> str:
    got = [line.rstrip() for line in read_text(".env").splitlines() if line.strip()]
    if got != WANT:
        wrong = next(
            (g for g, w in zip(got, WANT, strict=False) if g != w),
            (got[len(WANT) :] or ["(missing lines)"])[0],
        )
        raise Fail(f".env has {len(got)} lines, expected {len(WANT)}; first mismatch {wrong[:60]!r}")
    value = str(fields(answer(), {"missing": Text()})["missing"])
    if variable_names(value) != {re.sub(r"[^a-z0-9]", "", MISSING.casefold())}:
        raise Fail(f"answer says missing={value!r}, expected {MISSING} only")
    return ".env generated; BACKUP_TARGET still missing"


main(check)
