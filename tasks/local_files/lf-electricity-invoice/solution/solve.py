import email
import re
from email.utils import parsedate_to_datetime
from pathlib import Path

best = None
for p in sorted(Path("inbox").glob("*.eml")):
    msg = email.message_from_string(p.read_text())
    subject = msg["Subject"] or ""
    if "electricity invoice" not in subject.lower():
        continue
    when = parsedate_to_datetime(msg["Date"])
    if best is None or when > best[0]:
        best = (when, msg.get_payload())
body = best[1]
amount = re.search(r"amount due: EUR ([\d.]+)", body).group(1)
due = re.search(r"due date: (\d{4}-\d{2}-\d{2})", body).group(1)
Path("bills").mkdir(exist_ok=True)
Path("bills/electricity.txt").write_text(f"amount={amount} due={due}\n")
print(f"amount={amount}\ndue={due}")
