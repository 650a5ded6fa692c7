"""Grade term-contacts-json-csv.

``contacts.csv`` must hold exactly the expected rows (held here, not derived from the agent's
copy of contacts.json, which must stay as it was); the answer is ``no_email=<n>``.
"""

import csv
import hashlib
import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Number, answer, check_files, fields, main, pristine_path, read_text

HEADER = ["name", "email", "phone", "city"]
ROWS = [
    ["Bruno Almeida", "", "+351 912 005 118", "Lisboa"],
    ["Dieter Brenner", "d.brenner@mail.example", "+49 171 2044 557", "Jena"],
    ["Yara Haddad", "yara.h@boite.example", "+33 6 44 19 82 10", "Lyon"],
    ["Ama Mensah", "ama.mensah@post.example", "", ""],
    ["Aiko Tanaka", "aiko.t@mail.example", "+81 3 5550 1288", "Tokyo"],
]
NO_EMAIL = 1


def check() -> str:
    check_files(
        unchanged={"contacts.json": hashlib.sha256(pristine_path("contacts.json").read_bytes()).hexdigest()}
    )
    rows = [r for r in csv.reader(io.StringIO(read_text("contacts.csv"), newline="")) if r]
    if not rows or rows[0] != HEADER:
        raise Fail(f"contacts.csv header is {rows[:1]}, expected {HEADER}")
    if rows[1:] != ROWS:
        wrong = next((g for g, w in zip(rows[1:], ROWS, strict=False) if g != w), rows[len(ROWS) + 1 :][:1])
        raise Fail(f"contacts.csv has {len(rows) - 1} rows; first wrong row {wrong}")
    n = fields(answer(), {"no_email": Number()})["no_email"]
    if n != NO_EMAIL:
        raise Fail(f"answer says no_email={n:g}, expected {NO_EMAIL}")
    return "contacts converted; one contact without e-mail"


main(check)
