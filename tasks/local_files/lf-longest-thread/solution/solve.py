import email
from email.utils import parsedate_to_datetime
from pathlib import Path

msgs = {}
for p in sorted(Path("mail").glob("*.eml")):
    m = email.message_from_string(p.read_text())
    parent = (m["In-Reply-To"] or "").strip() or ((m["References"] or "").split() or [""])[-1]
    msgs[m["Message-ID"].strip()] = (p.name, parent, m["Subject"], parsedate_to_datetime(m["Date"]))


def root(mid):
    while msgs[mid][1] in msgs:
        mid = msgs[mid][1]
    return mid


threads = {}
for mid in msgs:
    threads.setdefault(root(mid), []).append(mid)
top_root, members = max(threads.items(), key=lambda kv: len(kv[1]))
members.sort(key=lambda mid: msgs[mid][3])
Path("thread.txt").write_text("".join(msgs[m][0] + "\n" for m in members))
print(f"subject={msgs[top_root][2]}\nmessages={len(members)}")
