from collections import Counter
from pathlib import Path

records, current = [], None
for line in Path("sample.fa").read_text().splitlines():
    if line.startswith(">"):
        current = []
        records.append(current)
    elif current is not None:
        current.append(line.strip().upper())
comp = str.maketrans("ACGT", "TGCA")
counts = Counter()
for parts in records:
    seq = "".join(parts)
    rc = seq[::-1].translate(comp)
    n = len(seq)
    for i in range(n - 11):
        k = seq[i:i + 12]
        r = rc[n - i - 12:n - i]
        counts[k if k < r else r] += 1
kmer, count = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))
Path("top_kmer.txt").write_text(f"{kmer} {count}\n")
print(f"kmer={kmer}\ncount={count}")
