import re
from pathlib import Path

PATTERNS = [
    re.compile(r"AKIA[A-Z0-9]{16}"),
    re.compile(r"ghp_[A-Za-z0-9]{36}"),
    re.compile(r"sk_live_[A-Za-z0-9]+"),
]
PG = re.compile(r"(postgres://[^:/\s]+:)([^@\s]+)(@)")
root = Path("projects")
hits = []
for p in sorted(root.rglob("*")):
    if not p.is_file():
        continue
    text = p.read_text()
    new = text
    for pat in PATTERNS:
        new = pat.sub("REDACTED", new)
    new = PG.sub(lambda m: m.group(1) + "REDACTED" + m.group(3), new)
    if new != text:
        p.write_text(new)
        hits.append(p.relative_to(root).as_posix())
hits.sort()
Path("secrets_report.txt").write_text("".join(h + "\n" for h in hits))
print(f"files={len(hits)}")
