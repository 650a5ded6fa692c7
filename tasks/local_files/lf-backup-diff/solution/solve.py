from pathlib import Path

old, new = Path("snapshot_2024-05-01"), Path("current")
a = {p.relative_to(old).as_posix() for p in old.rglob("*") if p.is_file()}
b = {p.relative_to(new).as_posix() for p in new.rglob("*") if p.is_file()}
changes = [("A", p) for p in b - a] + [("D", p) for p in a - b]
changes += [("M", p) for p in a & b if (old / p).read_bytes() != (new / p).read_bytes()]
changes.sort(key=lambda c: (c[1], c[0]))
Path("changes.txt").write_text("".join(f"{c} {p}\n" for c, p in changes))
n = {k: sum(1 for c, _ in changes if c == k) for k in "ADM"}
print(f"added={n['A']}\ndeleted={n['D']}\nmodified={n['M']}")
