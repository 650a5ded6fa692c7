import tarfile
from pathlib import Path

files = sorted(p for p in Path("notes").rglob("*") if p.is_file() and p.suffix not in (".tmp", ".swp"))
with tarfile.open("notes_backup.tar.gz", "w:gz") as tf:
    for p in files:
        tf.add(p, arcname=p.as_posix())
print(f"files={len(files)}")
