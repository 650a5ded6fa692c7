import json, re, sys
from pathlib import Path

HERE = Path(__file__).parent
ANSWER = HERE / "answer.txt"
ans = ANSWER.read_text(errors="replace") if ANSWER.exists() else ""


def finish(ok, reason):
    print(json.dumps({"reward": 1.0 if ok else 0.0, "reason": reason}))
    sys.exit(0)


if len(ans) > 4000:  # a final answer, not a dump of every candidate value
    finish(False, "answer longer than 4000 characters")


want = json.loads((HERE / "expected.json").read_text())
f = Path("top_kmer.txt")
if not f.is_file() or f.read_text().split() != [want["kmer"], str(want["count"])]:
    finish(False, "top_kmer.txt missing or wrong")
if want["kmer"] not in ans.upper() or str(want["count"]) not in re.findall(r"\d+", ans):
    finish(False, "answer lacks the k-mer and count")
finish(True, f"{want['kmer']} x{want['count']}")
