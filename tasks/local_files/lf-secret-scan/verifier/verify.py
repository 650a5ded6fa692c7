import hashlib, json, re, sys
from pathlib import Path

HERE = Path(__file__).parent
ANSWER = HERE / "answer.txt"
ans = ANSWER.read_text(errors="replace") if ANSWER.exists() else ""


def finish(ok, reason):
    print(json.dumps({"reward": 1.0 if ok else 0.0, "reason": reason}))
    sys.exit(0)


if len(ans) > 4000:  # a final answer, not a dump of every candidate value
    finish(False, "answer longer than 4000 characters")


exp = json.loads((HERE / "expected.json").read_text())
root = Path("projects")
for rel, digest in exp["redacted_sha256"].items():
    p = root / rel
    if not p.is_file():
        finish(False, f"{rel} missing")
    text = p.read_bytes()
    if any(s.encode() in text for s in exp["secrets"]):
        finish(False, f"secret left in {rel}")
    if hashlib.sha256(text).hexdigest() != digest:
        finish(False, f"{rel} changed beyond the redaction")
report = Path("secrets_report.txt")
if not report.is_file():
    finish(False, "secrets_report.txt missing")
listed = [l.strip() for l in report.read_text().splitlines() if l.strip()]
if listed != exp["leaked"]:
    finish(False, f"report lists {len(listed)} paths, expected {len(exp['leaked'])} sorted")
if str(len(exp["leaked"])) not in re.findall(r"\d+", ans):
    finish(False, "answer lacks the number of affected files")
finish(True, "all secrets redacted and reported")
