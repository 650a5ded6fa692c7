"""Grade term-env-from-template.

``.env`` must hold exactly the template's keys in order with the right values (held here), and
the answer must name the one required variable still without a value: ``missing=BACKUP_TARGET``.
"""

import hashlib
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Text, answer, check_files, fields, main, pristine_path, read_text

INPUTS = [".env.example", "secrets.json"]


def pristine_sha256(rels: list[str]) -> dict[str, str]:
    """Input -> SHA-256 of its original (pristine) copy: inputs the task does not ask to change."""
    return {rel: hashlib.sha256(pristine_path(rel).read_bytes()).hexdigest() for rel in rels}


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
    check_files(unchanged=pristine_sha256(INPUTS))
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
