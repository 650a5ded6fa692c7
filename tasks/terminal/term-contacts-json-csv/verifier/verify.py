import json, re, sys
from pathlib import Path

HERE = Path(__file__).parent
ANSWER = HERE / "answer.txt"
ans = ANSWER.read_text(errors="replace") if ANSWER.exists() else ""


def finish(ok, reason):
    print(json.dumps({"reward": 1.0 if ok else 0.0, "reason": reason}))
    sys.exit(0)


if len(ans) > 4000:  # a final answer, not a dump of every candidate value
    finish(False, "answer longer than 4000 characters")


import csv

want = [["Bruno Almeida", "", "+351 912 005 118", "Lisboa"], ["Dieter Brenner", "d.brenner@mail.example", "+49 171 2044 557", "Jena"],
        ["Yara Haddad", "yara.h@boite.example", "+33 6 44 19 82 10", "Lyon"], ["Ama Mensah", "ama.mensah@post.example", "", ""],
        ["Aiko Tanaka", "aiko.t@mail.example", "+81 3 5550 1288", "Tokyo"]]
f = Path("contacts.csv")
rows = list(csv.reader(f.read_text().splitlines())) if f.is_file() else []
if not rows or rows[0] != ["name", "email", "phone", "city"] or rows[1:] != want:
    finish(False, f"contacts.csv rows {rows[1:3]}...")
if "1" not in re.findall(r"\d+", ans) and "one" not in ans.lower():
    finish(False, "answer lacks 1")
finish(True, "contacts converted")
