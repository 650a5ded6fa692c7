"""Grade term-rename-function.

Every .py file of photokit/ is read as text here (never imported): ``get_exif_date`` may remain
only as the one alias line in exif.py. The package itself runs only through ``run_agent_code``:
the updated tests must be the original tests renamed (same syntax tree) and pass, and a driver checks, in a separate process, that the renamed
function, the alias and its callers work on a hidden photo the agent never saw. The answer is
``files_changed=5`` (exif.py, __init__.py, organize.py, report.py and the tests).
"""

import ast
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import (
    Fail,
    Number,
    answer,
    check_files,
    fields,
    folder_files,
    main,
    pristine_path,
    read_text,
    run_driver,
    run_unittests,
)

FILES = [
    "photokit/photokit/__init__.py",
    "photokit/photokit/exif.py",
    "photokit/photokit/organize.py",
    "photokit/photokit/report.py",
    "photokit/tests/test_photokit.py",
]
ALIAS = "get_exif_date = read_capture_date"
TESTS = "photokit/tests/test_photokit.py"
MARK = "@@PHOTOKIT-GRADE@@"
DRIVER = f'''
import json, sys
sys.path.insert(0, "photokit")
out = {{}}
try:
    import photokit
    from photokit import exif, organize, report
    meta = {{"DateTimeOriginal": "2019:12:31 23:59:58", "Artist": "R. Ocampo"}}
    out["exported"] = "read_capture_date" in getattr(photokit, "__all__", []) and hasattr(photokit, "read_capture_date")
    out["alias"] = exif.get_exif_date is exif.read_capture_date
    out["date"] = exif.read_capture_date(meta).isoformat()
    out["none"] = repr(exif.read_capture_date({{}}))
    out["folder"] = organize.target_folder(meta)
    out["oldest"] = report.oldest([meta, {{"DateTimeOriginal": "2020:02:02 02:02:02"}}, {{}}]).isoformat()
except Exception as exc:
    out["error"] = repr(exc)[:200]
print("{MARK}" + json.dumps(out))
'''
WANT = {
    "exported": True,
    "alias": True,
    "date": "2019-12-31T23:59:58",
    "none": "None",
    "folder": "2019/12",
    "oldest": "2019-12-31T23:59:58",
}
CHANGED = 5
TESTS_AT_LEAST = 3  # the three tests of the original suite, renamed


def check() -> str:
    check_files(must_exist=FILES)
    sources = {p.as_posix(): read_text(p.as_posix()) for p in sorted(Path("photokit").rglob("*.py"))}
    hits = [
        (rel, line.strip())
        for rel, text in sources.items()
        for line in text.splitlines()
        if "get_exif_date" in line
    ]
    if hits != [("photokit/photokit/exif.py", ALIAS)]:
        raise Fail(f"get_exif_date should remain only as the alias line in exif.py; found {hits[:3]}")
    if not re.search(r"^def read_capture_date\(", sources["photokit/photokit/exif.py"], re.MULTILINE):
        raise Fail("read_capture_date is not defined in exif.py")
    if "read_capture_date" not in sources[TESTS]:
        raise Fail("the tests were not updated")
    # The tests must be the original tests, renamed: the same syntax tree as the pristine file
    # with the name replaced (layout and comments may differ), not tests written to pass.
    renamed = pristine_path(TESTS).read_text(encoding="utf-8").replace("get_exif_date", "read_capture_date")
    try:
        same = ast.dump(ast.parse(sources[TESTS])) == ast.dump(ast.parse(renamed))
    except SyntaxError:
        same = False
    if not same:
        raise Fail("photokit/tests/test_photokit.py is not the original tests with the function renamed")
    extra = [rel for rel in folder_files("photokit/tests") if rel.endswith(".py") and rel != TESTS]
    if extra:
        raise Fail(f"photokit/tests holds test files the project did not have: {extra[:3]}")
    run_unittests("photokit", label="the tests", min_tests=TESTS_AT_LEAST)
    got = run_driver(
        DRIVER,
        MARK,
        dict,
        timed_out="hidden photokit checks timed out",
        incomplete="photokit did not run to the end of the hidden checks",
        copy=["photokit"],
    )
    for key, want in WANT.items():
        if got.get(key) != want:
            raise Fail(f"hidden check {key!r} failed: {str(got.get(key, got.get('error')))[:160]}")
    n = fields(answer(), {"files_changed": Number()})["files_changed"]
    if n != CHANGED:
        raise Fail(f"answer says files_changed={n:g}, expected {CHANGED}")
    return "get_exif_date renamed to read_capture_date everywhere, alias kept, tests pass"


main(check)
