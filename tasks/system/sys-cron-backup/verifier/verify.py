"""Grade sys-cron-backup.

Every line of the crontab but the backup entry must be exactly as it was (held below); the
backup entry must run the script that exists (``/home/anna/scripts/backup.sh``, directly or via
bash, as an absolute or home-relative path) every day at 02:30; the scripts themselves must be
left alone, and the command must be the script alone (output redirection allowed, no second
command). The answer names what was wrong, one ``problem=<cause>`` line per cause out of an
enumerated set: exactly ``script_path`` and ``schedule``.
"""

import hashlib
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, answer, check_files, enumerated, main, pristine_path, read_text

ORIGINAL: list[str | None] = [
    "# m h  dom mon dow   command",
    "MAILTO=anna.kovacs@freemail.example",
    "SHELL=/bin/bash",
    "",
    "# refresh the podcast feeds every 2 hours",
    "0 */2 * * * /home/anna/scripts/podcasts.sh >/dev/null 2>&1",
    "# nightly backup",
    None,  # the entry to fix
    "# clean the downloads folder on the first of the month",
    "15 9 1 * * find /home/anna/Downloads -mtime +60 -delete",
]
BACKUP_LINE = ORIGINAL.index(None)
SCRIPTS = ["home/anna/scripts/backup.sh", "home/anna/scripts/podcasts.sh"]
SCRIPT_PATHS = {
    "/home/anna/scripts/backup.sh",
    "~/scripts/backup.sh",
    "$HOME/scripts/backup.sh",
    "${HOME}/scripts/backup.sh",
}
RUNNERS = {"bash", "/bin/bash", "/usr/bin/bash"}
EVERY_DAY = {
    "dom": {"*", "*/1", "1-31"},
    "mon": {"*", "*/1", "1-12"},
    "dow": {"*", "*/1", "0-6", "0-7", "1-7"},
}
# After the script, the command may only redirect its output ('>> log 2>&1', '>/dev/null'):
# no second command (';', '&&', '|', a subshell), so a destructive or stale extra is caught.
REDIRECT = re.compile(r"(?:[12]?>>?|&>>?)\s*(?:&[12]|[\w./~${}-]+)|[12]>&[12]")
PROBLEMS = {
    "script_path": "the entry calls a script that does not exist",
    "schedule": "the entry runs at the wrong time",
    "permissions": "the script is not executable",
    "shell": "the crontab's SHELL or PATH is wrong",
    "syntax": "the line is not valid crontab syntax",
}
CAUSES = {"script_path", "schedule"}


def check() -> str:
    check_files(
        unchanged={rel: hashlib.sha256(pristine_path(rel).read_bytes()).hexdigest() for rel in SCRIPTS}
    )
    lines = read_text("crontab.txt").rstrip("\n").split("\n")
    if len(lines) != len(ORIGINAL):
        raise Fail(f"crontab has {len(lines)} lines, expected {len(ORIGINAL)}")
    for got, want in zip(lines, ORIGINAL, strict=True):
        if want is not None and got.rstrip() != want:
            raise Fail(f"a line that had to stay was changed: {got[:60]!r}")
    parts = lines[BACKUP_LINE].split(None, 5)
    if len(parts) < 6:
        raise Fail(f"backup line malformed: {lines[BACKUP_LINE][:60]!r}")
    minute, hour, dom, mon, dow, command = parts
    if not (minute.isdigit() and hour.isdigit()) or (int(minute), int(hour)) != (30, 2):
        raise Fail(f"backup runs at minute {minute!r} hour {hour!r}, expected 02:30")
    if dom not in EVERY_DAY["dom"] or mon not in EVERY_DAY["mon"] or dow not in EVERY_DAY["dow"]:
        raise Fail(f"backup schedule is {' '.join(parts[:5])}, expected every day")
    words = command.split(None, 1)
    if words and words[0] in RUNNERS:
        words = words[1].split(None, 1) if len(words) > 1 else []
    if not words or words[0] not in SCRIPT_PATHS:
        raise Fail(f"backup command is {command[:60]!r}, expected /home/anna/scripts/backup.sh")
    rest = REDIRECT.sub("", words[1] if len(words) > 1 else "").strip()
    if rest:
        raise Fail(f"backup command runs more than the backup script: {rest[:60]!r}")
    named = enumerated(answer(), "problem", PROBLEMS)
    if named != CAUSES:
        raise Fail(f"answer names the problems {sorted(named)}, expected {sorted(CAUSES)}")
    return "backup runs /home/anna/scripts/backup.sh every day at 02:30; problems named"


main(check)
