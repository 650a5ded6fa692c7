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


top = json.loads((HERE / "expected.json").read_text())
f = Path("blocklist.txt")
got = [l.strip() for l in f.read_text().splitlines() if l.strip()] if f.is_file() else []
if got != [ip for ip, _ in top]:
    finish(False, f"blocklist.txt is {got[:5]}")
nums = re.findall(r"\d+", ans)
for ip, count in top:
    if ip not in ans or str(count) not in nums:
        finish(False, f"answer lacks {ip} with {count}")
finish(True, "top 401 clients found")
