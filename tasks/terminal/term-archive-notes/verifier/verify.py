"""Grade term-archive-notes.

The archive must hold exactly the four notes (byte for byte, under ``notes/``), leave out the
editor leftovers, and ``notes/`` itself must be untouched; the answer is ``files=<n>``.
Originals are read from the pristine copy of the inputs, never from /work.
"""

import hashlib
import io
import sys
import tarfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Number, answer, check_files, fields, main, pristine_path, read_bytes

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


def archive_members(data: bytes) -> dict[str, bytes]:
    """Regular files of the archive by normalised name; Fail on anything else outside notes/."""
    members: dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tf:
            for m in tf.getmembers():
                name = m.name.removeprefix("./").rstrip("/")
                if m.isdir():
                    if name != "notes" and not name.startswith("notes/"):
                        raise Fail(f"archive member {name!r} is outside notes/")
                    continue
                if not m.isfile():
                    raise Fail(f"archive member {name!r} is not a regular file")
                if name in members:
                    raise Fail(f"archive holds {name!r} twice")
                if m.size > MAX_MEMBER:
                    raise Fail(f"archive member {name!r} is too large")
                fh = tf.extractfile(m)
                members[name] = fh.read() if fh is not None else b""
    except (OSError, EOFError, tarfile.TarError) as exc:
        raise Fail(f"notes_backup.tar.gz unreadable: {type(exc).__name__}") from None
    return members


def check() -> str:
    originals = {rel: pristine_path(rel).read_bytes() for rel in NOTES}
    check_files(unchanged={rel: hashlib.sha256(b).hexdigest() for rel, b in originals.items()})
    data = read_bytes("notes_backup.tar.gz")
    if data[:2] != b"\x1f\x8b":
        raise Fail("notes_backup.tar.gz is not gzip-compressed")
    members = archive_members(data)
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
