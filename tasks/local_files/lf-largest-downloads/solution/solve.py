from pathlib import Path

root = Path("downloads")
files = sorted(((p.stat().st_size, p.relative_to(root).as_posix()) for p in root.rglob("*") if p.is_file()),
               key=lambda x: (-x[0], x[1]))[:3]
Path("largest.txt").write_text("".join(f"{s} {p}\n" for s, p in files))
print(f"largest={files[0][1]}")
