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


import subprocess

root = Path("photokit")
hits = []
for p in root.rglob("*.py"):
    for line in p.read_text().splitlines():
        if "get_exif_date" in line:
            hits.append((p.relative_to(root).as_posix(), line.strip()))
if hits != [("photokit/exif.py", "get_exif_date = read_capture_date")]:
    finish(False, f"get_exif_date still used: {hits[:3]}")
if "def read_capture_date(meta)" not in (root / "photokit/exif.py").read_text():
    finish(False, "read_capture_date not defined")
if "read_capture_date" not in (root / "tests/test_photokit.py").read_text():
    finish(False, "tests not updated")
run = subprocess.run([sys.executable, "-m", "unittest", "discover", "-s", "tests"], cwd=root,
                     capture_output=True, text=True, timeout=120)
if run.returncode != 0:
    finish(False, "tests fail")
check = ("from photokit import read_capture_date\nfrom photokit.exif import get_exif_date\n"
         "assert get_exif_date is read_capture_date\nprint('ok')")
run = subprocess.run([sys.executable, "-c", check], cwd=root, capture_output=True, text=True, timeout=60)
if run.stdout.strip() != "ok":
    finish(False, "read_capture_date not exported from photokit or alias broken")
if "5" not in re.findall(r"\d+", ans) and "five" not in ans.lower():
    finish(False, "answer lacks 5 changed files")
finish(True, "function renamed")
