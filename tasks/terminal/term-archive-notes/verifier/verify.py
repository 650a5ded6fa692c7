"""Grade term-archive-notes.

The archive must hold exactly the four notes (byte for byte, under ``notes/``), leave out the
editor leftovers, and ``notes/`` itself must be untouched; the answer is ``files=<n>``.
Originals are read from the pristine copy of the inputs, never from /work.
"""

import hashlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Number, answer, check_files, fields, main, pristine_path, tar_members

NOTES = [
    "notes/journal/.2024-04-02.md.swp",
    "notes/journal/2024-04-02.md",
    "notes/journal/2024-04-09.md",
    "notes/journal/2024-04-09.md.tmp",
    "notes/recipes/shakshuka.md",
    "notes/recipes/~shakshuka.tmp",
    "notes/todo.md",
]
ARCHIVED = sorted(n for n in NOTES if not n.endswith((".tmp", ".swp")))
MAX_MEMBER = 1_000_000
ARCHIVE = "notes_backup.tar.gz"


def archive_members() -> dict[str, bytes]:
    """Regular files of the archive by normalised name; Fail on anything else outside notes/.
    The archive is read as a stream whose inflated size and member count are capped first."""
    members: dict[str, bytes] = {}
    for m, body in tar_members(ARCHIVE, max_members=200, max_member=MAX_MEMBER, max_total=8_000_000):
        name = m.name.removeprefix("./").rstrip("/")
        if m.isdir():
            if name != "notes" and not name.startswith("notes/"):
                raise Fail(f"archive member {name!r} is outside notes/")
            continue
        if not m.isfile() or body is None:
            raise Fail(f"archive member {name!r} is not a regular file")
        if name in members:
            raise Fail(f"archive holds {name!r} twice")
        members[name] = body
    return members


def check() -> str:
    originals = {rel: pristine_path(rel).read_bytes() for rel in NOTES}
    check_files(unchanged={rel: hashlib.sha256(b).hexdigest() for rel, b in originals.items()})
    members = archive_members()
    if sorted(members) != ARCHIVED:
        raise Fail(f"archive holds {sorted(members)[:8]}, expected {ARCHIVED}")
    for name in ARCHIVED:
        if members[name] != originals[name]:
            raise Fail(f"{name} in the archive differs from notes/")
    n = fields(answer(), {"files": Number()})["files"]
    if n != len(ARCHIVED):
        raise Fail(f"answer says files={n:g}, the archive holds {len(ARCHIVED)}")
    return f"backup archive correct, notes/ untouched, files={len(ARCHIVED)}"


main(check)
