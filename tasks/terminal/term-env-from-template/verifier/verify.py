"""Grade term-env-from-template.

``.env`` must hold exactly the template's keys in order with the right values (held here), and
the answer must name the one required variable still without a value: ``missing=BACKUP_TARGET``.
"""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Field, answer, check_files, fields, main, pristine_sha256, read_text

INPUTS = [".env.example", "secrets.json"]


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


TEMPLATE_KEYS = {line.split("=", 1)[0] for line in WANT}


def variables_named(value: str) -> set[str]:
    """The template variables the answer's value names (any case; prose around them ignored)."""
    return {w.upper() for w in re.findall(r"[A-Za-z][A-Za-z0-9_]*", value) if w.upper() in TEMPLATE_KEYS}


def check() -> str:
    check_files(unchanged=pristine_sha256(INPUTS))
    got = [line.rstrip() for line in read_text(".env").splitlines() if line.strip()]
    if got != WANT:
        wrong = next(
            (g for g, w in zip(got, WANT, strict=False) if g != w),
            (got[len(WANT) :] or ["(missing lines)"])[0],
        )
        raise Fail(f".env has {len(got)} lines, expected {len(WANT)}; first mismatch {wrong[:60]!r}")
    value = str(fields(answer(), {"missing": Field()})["missing"])
    if variables_named(value) != {MISSING}:
        raise Fail(f"answer says missing={value!r}, expected {MISSING} only")
    return ".env generated; BACKUP_TARGET still missing"


main(check)
