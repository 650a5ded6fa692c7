"""Grade term-fix-ini-parser.

The agent's parser never runs inside this process: ``run_agent_code`` runs the original tests
(from the pristine inputs) and a driver that parses hidden INI texts the agent never saw, in a
separate process; the driver's results are compared here with the dicts held below. The tests
in /work must be unchanged; the answer is a one-line ``fix=<summary>``.
"""

import hashlib
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
    pristine_path,
    run_driver,
    run_unittests,
)

TESTS = ["dotcfg/tests/test_parser.py"]
MARK = "@@INI-GRADE@@"
DRIVER = f'''
import json, sys
sys.path.insert(0, "dotcfg")
from dotcfg import parse_ini
out = []
for text in json.loads(sys.stdin.read()):
    try:
        out.append(parse_ini(text))
    except Exception as exc:
        out.append("raised " + repr(exc)[:200])
print("{MARK}" + json.dumps(out, default=repr))
'''
# (hidden INI text, the dict the docstring's rules give)
CASES: list[tuple[str, dict[str, dict[str, str]]]] = [
    (
        "a=1\n# c\n[s]\nK = x=y=z\nq = keep;this#too ; gone\nr = v # gone\n[t]\n  e =  \n",
        {"DEFAULT": {"a": "1"}, "s": {"k": "x=y=z", "q": "keep;this#too", "r": "v"}, "t": {"e": ""}},
    ),
    (
        "; header comment\n[backup]\nTarget = sftp://nas/backup?user=rex&key=a=b\nExclude = *.tmp;*.swp\n"
        "Password = Vx#9=kL;q2   ; rotate yearly\n# Retention = 7\nRetention = 30 # days\n",
        {
            "DEFAULT": {},
            "backup": {
                "target": "sftp://nas/backup?user=rex&key=a=b",
                "exclude": "*.tmp;*.swp",
                "password": "Vx#9=kL;q2",
                "retention": "30",
            },
        },
    ),
    (
        "  Editor  =  nvim  \nTheme=dark=true\n[git]\n  User Name = Rex Ocampo # me\nsigning=on\n",
        {
            "DEFAULT": {"editor": "nvim", "theme": "dark=true"},
            "git": {"user name": "Rex Ocampo", "signing": "on"},
        },
    ),
    ("", {"DEFAULT": {}}),
]
ANSWER_MIN = 10


def check() -> str:
    originals = {rel: pristine_path(rel).read_bytes() for rel in TESTS}
    check_files(unchanged={rel: hashlib.sha256(b).hexdigest() for rel, b in originals.items()})
    run_unittests("dotcfg", files=originals)
    got = run_driver(
        DRIVER,
        MARK,
        list,
        timed_out="hidden parser checks timed out",
        incomplete="the parser did not run to the end of the hidden checks",
        stdin=json.dumps([text for text, _ in CASES]).encode(),
        copy=["dotcfg"],
    )
    if len(got) != len(CASES):
        raise Fail("hidden parser checks returned the wrong number of results")
    for k, (result, (_, want)) in enumerate(zip(got, CASES, strict=True)):
        if result != want:
            raise Fail(f"parse_ini wrong on hidden case {k}: {str(result)[:160]}")
    summary = str(fields(answer(), {"fix": Field()})["fix"])  # free text: any one-line summary
    if len(summary) < ANSWER_MIN:
        raise Fail("no summary of the fix given")
    return "parser fixed; tests and hidden checks pass"


main(check)
