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


want = {"2024-02-28_payslip.txt", "2022-09-01_rental-contract.txt", "2023-11-17_vaccination-record.txt",
        "2024-03-31_payslip.txt", "2024-01-15_car-insurance.txt", "2024-03-08_electricity-bill.txt",
        "2023-06-12_tax-assessment.txt"}
names = {p.name for p in Path("scans").iterdir()} if Path("scans").is_dir() else set()
if names != want:
    finish(False, f"scans/ holds {sorted(names)[:8]}")
for n in want:
    text = (Path("scans") / n).read_text()
    d = re.search(r"Date: (\d\d)\.(\d\d)\.(\d{4})", text)
    if not d or f"{d.group(3)}-{d.group(2)}-{d.group(1)}" != n[:10]:
        finish(False, f"{n} does not hold its document")
if "2022-09-01_rental-contract.txt" not in ans:
    finish(False, "answer lacks the oldest document's name")
finish(True, "scans renamed")
