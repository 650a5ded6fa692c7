import json, re, sys
from pathlib import Path

ANSWER = Path(__file__).parent / "answer.txt"
ans = ANSWER.read_text(errors="replace") if ANSWER.exists() else ""


def finish(ok, reason):
    print(json.dumps({"reward": 1.0 if ok else 0.0, "reason": reason}))
    sys.exit(0)


if len(ans) > 4000:  # a final answer, not a dump of every candidate value
    finish(False, "answer longer than 4000 characters")


f = Path("admin_url.txt")
if not f.is_file() or f.read_text().strip() != "https://192.168.8.1:8011/":
    finish(False, "admin_url.txt missing or wrong")
if "8011" not in re.findall(r"\d+", ans):
    finish(False, "answer lacks port 8011")
finish(True, "port 8011")
