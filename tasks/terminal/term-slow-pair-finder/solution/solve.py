import subprocess
import sys
from pathlib import Path

Path("tools/find_pairs.py").write_text('''"""Count unordered pairs (i < j) of amounts whose sum equals the target.

Usage: python3 find_pairs.py AMOUNTS_FILE TARGET
"""
import sys
from collections import Counter


def count_pairs(values, target):
    counts = Counter(values)
    total = 0
    for v, n in counts.items():
        w = target - v
        if w > v:
            total += n * counts.get(w, 0)
        elif w == v:
            total += n * (n - 1) // 2
    return total


def main():
    path, target = sys.argv[1], int(sys.argv[2])
    with open(path) as fh:
        values = [int(line) for line in fh if line.strip()]
    print(count_pairs(values, target))


if __name__ == "__main__":
    main()
''')
out = subprocess.run([sys.executable, "tools/find_pairs.py", "data/amounts.txt", "1000000"],
                     capture_output=True, text=True, check=True)
print(f"pairs={out.stdout.strip()}")
