import mailbox
from email.utils import parsedate_to_datetime
from pathlib import Path

found = []
for msg in mailbox.mbox("mail.mbox"):
    if "@rostami-praxis.example" in (msg["From"] or ""):
        when = parsedate_to_datetime(msg["Date"])
        if when.year == 2024:
            found.append((when, msg["Subject"]))
found.sort()
Path("practice_2024.txt").write_text("".join(s + "\n" for _, s in found))
print(f"messages={len(found)}")
