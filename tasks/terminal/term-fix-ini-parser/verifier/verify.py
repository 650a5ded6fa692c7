import json, sys
from pathlib import Path

HERE = Path(__file__).parent
ANSWER = HERE / "answer.txt"
ans = ANSWER.read_text(errors="replace") if ANSWER.exists() else ""


def finish(ok, reason):
    print(json.dumps({"reward": 1.0 if ok else 0.0, "reason": reason}))
    sys.exit(0)


if len(ans) > 4000:  # a final answer, not a dump of every candidate value
    finish(False, "answer longer than 4000 characters")


import subprocess

tests = Path("dotcfg/tests/test_parser.py").read_text() if Path("dotcfg/tests/test_parser.py").is_file() else ""
if "pL8#Tzuk=Rimon" not in tests or "def test_inline_comments" not in tests:
    finish(False, "the tests were modified")
run = subprocess.run([sys.executable, "-m", "unittest", "discover", "-s", "tests"], cwd="dotcfg",
                     capture_output=True, text=True, timeout=120)
if run.returncode != 0:
    finish(False, "unit tests fail: " + (run.stderr.strip().splitlines() or [""])[-1][:120])
hidden = r'''
from dotcfg import parse_ini
c = parse_ini("a=1\n# c\n[s]\nK = x=y=z\nq = keep;this#too ; gone\nr = v # gone\n[t]\n  e =  \n")
assert c == {"DEFAULT": {"a": "1"}, "s": {"k": "x=y=z", "q": "keep;this#too", "r": "v"}, "t": {"e": ""}}, c
print("ok")
'''
run = subprocess.run([sys.executable, "-c", hidden], cwd="dotcfg", capture_output=True, text=True, timeout=60)
if run.stdout.strip() != "ok":
    finish(False, "hidden parser checks failed: " + (run.stderr.strip().splitlines() or [""])[-1][:160])
if len(ans.strip()) < 5:
    finish(False, "no summary given")
finish(True, "parser fixed")
