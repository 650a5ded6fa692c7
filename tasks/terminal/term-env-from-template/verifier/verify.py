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


want = ["POSTGRES_USER=cloud", "POSTGRES_PASSWORD=gq7Vz!Lumen-4402", "POSTGRES_DB=cloud", "REDIS_HOST=redis",
        "ADMIN_EMAIL=sanna.virtanen@koti.example", "SMTP_HOST=mail.koti.example", "SMTP_PASSWORD=smtp-app-3f81aa20c9",
        "BACKUP_TARGET=", "TZ=Europe/Helsinki"]
f = Path(".env")
got = [l.rstrip() for l in f.read_text().splitlines() if l.strip()] if f.is_file() else []
if got != want:
    finish(False, f".env has {len(got)} lines; first mismatch {next((g for g, w in zip(got, want) if g != w), got[len(want):][:1])}")
if "BACKUP_TARGET" not in ans or "POSTGRES_PASSWORD" in ans or "SMTP_PASSWORD" in ans:
    finish(False, "answer should name only BACKUP_TARGET")
finish(True, ".env generated")
