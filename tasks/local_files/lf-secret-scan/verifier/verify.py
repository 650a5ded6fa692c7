"""Verifier for lf-secret-scan: each secret replaced by REDACTED, every other byte unchanged.

expected.json (written by tasks/_build/gen_local_files.py) holds the sha256 of every project
file after a correct redaction, the secrets and the sorted list of affected files. A redaction
that removes the surrounding text, misses a secret or touches another file fails.
"""

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Number, answer, check_files, fields, folder_files, main, read_bytes, read_text

EXPECTED = json.loads((Path(__file__).resolve().parent / "expected.json").read_text())
README = {"projects/README.txt": "b75cdb2aefc63c342093663cde3409bef061cf1c625bc6c409089600c4b57f0a"}


# What a secret of the four kinds looks like, wherever it is: a copy of a file under another name
# ("config.yml.orig", a backup folder) still publishes it.
SECRET_SHAPES = re.compile(
    rb"AKIA[0-9A-Z]{16}|ghp_[A-Za-z0-9]{36}|sk_live_[A-Za-z0-9]{8,}|postgres(?:ql)?://[^:@/\s]+:(?!REDACTED@)[^@\s]+@"
)


def check() -> str:
    # The whole folder to be published: every file in it (new ones included) is scanned, and it
    # must hold exactly the files it had (no leftover original beside a redacted copy).
    present = folder_files("projects")
    for rel in present:
        data = read_bytes(rel)
        if any(secret.encode() in data for secret in EXPECTED["secrets"]) or SECRET_SHAPES.search(data):
            raise Fail(f"a secret is left in {rel.removeprefix('projects/')}")
    expected_files = {f"projects/{rel}" for rel in EXPECTED["redacted_sha256"]} | set(README)
    extra = sorted(set(present) - expected_files)
    if extra:
        raise Fail(f"projects/ holds files it did not have: {extra[:3]}")
    check_files(unchanged={f"projects/{rel}": d for rel, d in EXPECTED["redacted_sha256"].items()} | README)
    listed = [line.strip() for line in read_text("secrets_report.txt").splitlines() if line.strip()]
    if listed != EXPECTED["leaked"]:
        raise Fail(f"secrets_report.txt lists {len(listed)} paths, expected {len(EXPECTED['leaked'])} sorted")
    got = fields(answer(), {"files": Number(units=("files",))})["files"]
    if got != len(EXPECTED["leaked"]):
        raise Fail(f"files={got}, expected {len(EXPECTED['leaked'])}")
    return "all secrets redacted and reported"


main(check)
