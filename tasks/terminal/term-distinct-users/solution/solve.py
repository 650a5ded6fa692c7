import subprocess
import sys
from pathlib import Path

users, buyers = set(), set()
proc = subprocess.Popen([sys.executable, "events/gen_events.py"], stdout=subprocess.PIPE, text=True, bufsize=1 << 20)
for line in proc.stdout:
    _, user, event = line.rstrip("\n").split(",")
    users.add(user)
    if event == "purchase":
        buyers.add(user)
proc.wait()
Path("user_stats.txt").write_text(f"distinct_users={len(users)}\nbuyers={len(buyers)}\n")
print(f"distinct_users={len(users)}\nbuyers={len(buyers)}")
