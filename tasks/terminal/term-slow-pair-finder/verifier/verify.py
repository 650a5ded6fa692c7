import json, random, re, subprocess, sys, tempfile
from collections import Counter
from pathlib import Path

ANSWER = Path(__file__).parent / "answer.txt"
ans = ANSWER.read_text(errors="replace") if ANSWER.exists() else ""


def finish(ok, reason):
    print(json.dumps({"reward": 1.0 if ok else 0.0, "reason": reason}))
    sys.exit(0)


if len(ans) > 4000:  # a final answer, not a dump of every candidate value
    finish(False, "answer longer than 4000 characters")


def reference(values, target):
    c = Counter(values)
    total = 0
    for v, n in c.items():
        w = target - v
        if w > v:
            total += n * c.get(w, 0)
        elif w == v:
            total += n * (n - 1) // 2
    return total


script = Path("tools/find_pairs.py")
if not script.is_file():
    finish(False, "tools/find_pairs.py missing")
values = [int(l) for l in Path("data/amounts.txt").read_text().split()]
want_local = reference(values, 1_000_000)
rng = random.Random(4242)
cases = [([5, 5, 5, 1, 9, 10, 0], 10), ([rng.randint(1, 400_000) for _ in range(200_000)], 400_000)]
with tempfile.TemporaryDirectory() as tmp:
    for k, (vals, target) in enumerate(cases):
        f = Path(tmp) / f"case{k}.txt"
        f.write_text("".join(f"{v}\n" for v in vals))
        try:
            out = subprocess.run([sys.executable, str(script), str(f), str(target)],
                                 capture_output=True, text=True, timeout=20)
        except subprocess.TimeoutExpired:
            finish(False, f"find_pairs.py too slow on case {k} ({len(vals)} amounts)")
        if out.stdout.strip() != str(reference(vals, target)):
            finish(False, f"find_pairs.py wrong on case {k}: {out.stdout.strip()[:40]!r}")
if str(want_local) not in re.findall(r"\d+", ans):
    finish(False, f"answer lacks {want_local}")
finish(True, "fast and correct")
