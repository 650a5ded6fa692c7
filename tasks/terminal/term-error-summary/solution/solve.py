from pathlib import Path

counts = {}
for p in sorted(Path("logs").glob("*.log")):
    counts[p.stem] = sum(1 for line in p.open() if line.split(None, 2)[1:2] == ["ERROR"])
order = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
Path("errors.txt").write_text("".join(f"{s} {n}\n" for s, n in order))
print(f"service={order[0][0]}")
