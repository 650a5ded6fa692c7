import json, sys
from pathlib import Path

ANSWER = Path(__file__).parent / "answer.txt"
ans = ANSWER.read_text(errors="replace") if ANSWER.exists() else ""


def finish(ok, reason):
    print(json.dumps({"reward": 1.0 if ok else 0.0, "reason": reason}))
    sys.exit(0)


if len(ans) > 4000:  # a final answer, not a dump of every candidate value
    finish(False, "answer longer than 4000 characters")


ORIGINAL = [
    "# m h  dom mon dow   command",
    "MAILTO=anna.kovacs@freemail.example",
    "SHELL=/bin/bash",
    "",
    "# refresh the podcast feeds every 2 hours",
    "0 */2 * * * /home/anna/scripts/podcasts.sh >/dev/null 2>&1",
    "# nightly backup",
    None,
    "# clean the downloads folder on the first of the month",
    "15 9 1 * * find /home/anna/Downloads -mtime +60 -delete",
]
lines = Path("crontab.txt").read_text().rstrip("\n").split("\n")
if len(lines) != len(ORIGINAL):
    finish(False, f"crontab has {len(lines)} lines, expected {len(ORIGINAL)}")
for got, want in zip(lines, ORIGINAL):
    if want is not None and got.rstrip() != want:
        finish(False, f"line changed: {got[:60]!r}")
fields = lines[7].split(None, 5)
if len(fields) < 6:
    finish(False, "backup line malformed")
m, h, dom, mon, dow, cmd = fields
if (int(m) if m.isdigit() else -1, int(h) if h.isdigit() else -1) != (30, 2) or (dom, mon) != ("*", "*") or dow not in ("*", "0-6", "0-7", "1-7"):
    finish(False, f"backup schedule is {' '.join(fields[:5])}")
if not cmd.startswith("/home/anna/scripts/backup.sh"):
    finish(False, f"backup command is {cmd[:60]!r}")
low = ans.lower()
if not ans.strip() or not any(w in low for w in ("bin/backup", "path", "script", "location")):
    finish(False, "answer does not explain the wrong path")
finish(True, "backup runs daily at 02:30")
