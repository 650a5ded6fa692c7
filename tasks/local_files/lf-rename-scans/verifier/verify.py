"""Verifier for lf-rename-scans: every scan renamed in place to <YYYY-MM-DD>_<type>.txt.

The new name of each original file and its content's sha256 are recorded here, so a file that
was renamed wrongly, copied instead of renamed, or edited fails. The oldest document is the
rental contract of 2022-09-01.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, RelPath, answer, check_files, fields, main

RENAMED = {  # new name -> sha256 of the original file's content (scan_0001.txt ... scan_0007.txt)
    "2024-02-28_payslip.txt": "e242775b2fa240144164d8cc46848be858281a98397a5245f83238c87398b6bb",
    "2022-09-01_rental-contract.txt": "43ed481cd0f98760bb393e8e0e125d43ac910344484d44f1532dea34eb2de011",
    "2023-11-17_vaccination-record.txt": "a94a97d032d85dd9a6f3166aa1417915483363212228e8430e46d2e064e8db03",
    "2024-03-31_payslip.txt": "3c26d221e1063688141b85581b7f8d518fb5820cccc3ec06cfcad1fc04667386",
    "2024-01-15_car-insurance.txt": "51a501f47836ab374ef0790dcfab65c36b1165f5b777cdeff66a3bc1992f2e1d",
    "2024-03-08_electricity-bill.txt": "b0bffadfe5e72b8083620ba4635b1646ee80fc0b44df61e5e19c201b27cb8da4",
    "2023-06-12_tax-assessment.txt": "c4f4eb110f39035254683ecf7102b301549326fc7cef57a765193613218fb9b7",
}
OLDEST = "2022-09-01_rental-contract.txt"


def check() -> str:
    scans = Path("scans")
    if not scans.is_dir() or scans.is_symlink():
        raise Fail("scans/ is missing")
    names = sorted(p.name for p in scans.iterdir())
    if any(p.is_symlink() for p in scans.iterdir()):
        raise Fail("scans/ holds a link instead of a renamed file")
    if names != sorted(RENAMED):
        raise Fail(f"scans/ holds {names[:10]}, expected the 7 renamed files only")
    check_files(unchanged={f"scans/{name}": digest for name, digest in RENAMED.items()})
    name = fields(answer(), {"oldest": RelPath("scans", "name")})["oldest"]
    if name != OLDEST:
        raise Fail(f"oldest document answered as {name!r}, expected {OLDEST}")
    return "scans renamed, contents unchanged"


main(check)
