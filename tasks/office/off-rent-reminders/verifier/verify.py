import csv, json, re, sys, zipfile
import xml.etree.ElementTree as ET
from pathlib import Path

ANSWER = Path(__file__).parent / "answer.txt"
ans = ANSWER.read_text(errors="replace") if ANSWER.exists() else ""
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def finish(ok, reason):
    print(json.dumps({"reward": 1.0 if ok else 0.0, "reason": reason}))
    sys.exit(0)


if len(ans) > 4000:  # a final answer, not a dump of every candidate value
    finish(False, "answer longer than 4000 characters")


def paragraphs(path):
    root = ET.fromstring(zipfile.ZipFile(path).read("word/document.xml"))
    return ["".join(t.text or "" for t in p.iter(W + "t")) for p in root.iter(W + "p")]


tenants = list(csv.DictReader(Path("tenants.csv").read_text().splitlines()))
due = [t for t in tenants if float(t["arrears_eur"]) > 0]
made = sorted(p.name for p in Path("letters").glob("*")) if Path("letters").is_dir() else []
if made != sorted(t["unit"] + ".docx" for t in due):
    finish(False, f"letters/ holds {made}")
for t in due:
    try:
        paras = paragraphs(Path("letters") / (t["unit"] + ".docx"))
    except Exception as exc:  # not a valid docx
        finish(False, f"{t['unit']}.docx unreadable: {type(exc).__name__}")
    want = [
        "Hausverwaltung Sonnenhof - payment reminder",
        f"Dear {t['name']},",
        f"our records show outstanding rent of {t['arrears_eur']} EUR for unit {t['unit']}.",
        "Please transfer the amount by 2024-07-15.",
        "Kind regards, Hausverwaltung Sonnenhof",
    ]
    if paras != want:
        finish(False, f"{t['unit']}.docx text differs from the filled template")
total = sum(float(t["arrears_eur"]) for t in due)
nums = [float(x) for x in re.findall(r"\d+(?:\.\d+)?", ans.replace(",", ""))]
if not any(abs(n - total) < 0.006 for n in nums):
    finish(False, f"answer lacks total {total:.2f}")
finish(True, f"{len(due)} letters, total {total:.2f}")
