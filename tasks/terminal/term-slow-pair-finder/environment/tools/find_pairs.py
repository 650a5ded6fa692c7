"""Count unordered pairs (i < j) of amounts whose sum equals the target.

Usage: python3 find_pairs.py AMOUNTS_FILE TARGET
"""
import sys


def count_pairs(values, target):
    count = 0
    for i in range(len(values)):
        for j in range(i + 1, len(values)):
            if values[i] + values[j] == target:
                count += 1
    return count


def main():
    path, target = sys.argv[1], int(sys.argv[2])
    with open(path) as fh:
        values = [int(line) for line in fh if line.strip()]
    print(count_pairs(values, target))


if __name__ == "__main__":
    main()
