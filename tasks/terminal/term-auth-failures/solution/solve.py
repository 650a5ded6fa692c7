import gzip
from collections import Counter
from pathlib import Path

fails = Counter()
for p in sorted(Path("logs").iterdir()):
    opener = gzip.open if p.suffix == ".gz" else open
    with opener(p, "rt") as fh:
        for line in fh:
            parts = line.split('"')
            if parts[2].split()[0] == "401":
                fails[line.split()[0]] += 1
top = sorted(fails.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
Path("blocklist.txt").write_text("".join(ip + "\n" for ip, _ in top))
print("\n".join(f"{ip}={n}" for ip, n in top))
