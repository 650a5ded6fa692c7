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


import tarfile

want = {"notes/journal/2024-04-02.md", "notes/journal/2024-04-09.md", "notes/recipes/shakshuka.md", "notes/todo.md"}
try:
    with tarfile.open("notes_backup.tar.gz", "r:gz") as tf:
        members = {m.name.removeprefix("./"): m for m in tf.getmembers() if m.isfile()}
        if set(members) != want:
            finish(False, f"archive holds {sorted(members)}")
        for name, m in members.items():
            if tf.extractfile(m).read() != Path(name).read_bytes():
                finish(False, f"{name} differs from notes/")
except (OSError, tarfile.TarError) as exc:
    finish(False, f"notes_backup.tar.gz unreadable: {type(exc).__name__}")
if len(list(Path("notes").rglob("*.tmp"))) != 2 or not Path("notes/journal/.2024-04-02.md.swp").exists():
    finish(False, "notes/ was changed")
if "4" not in re.findall(r"\d+", ans) and "four" not in ans.lower():
    finish(False, "answer lacks 4")
finish(True, "backup archive correct")
