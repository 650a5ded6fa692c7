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




def norm(p):
    digits = "".join(ch for ch in p if ch.isdigit() or ch == "+")
    if digits.startswith("00"):
        digits = "+" + digits[2:]
    elif digits.startswith("0"):
        digits = "+49" + digits[1:]
    return digits


want = json.loads((HERE / "expected.json").read_text())
f = Path("merged.vcf")
text = f.read_text() if f.is_file() else ""
cards = [c for c in text.split("BEGIN:VCARD")[1:]]
phones = []
for c in cards:
    tels = [l.split(":", 1)[1] for l in c.splitlines() if l.upper().startswith("TEL")]
    fns = [l for l in c.splitlines() if l.upper().startswith("FN")]
    if len(tels) < 1 or not fns:
        finish(False, "a card lacks FN or TEL")
    phones.append(norm(tels[0]))
if sorted(phones) != want:
    finish(False, f"merged.vcf has {len(cards)} cards / {len(set(phones))} distinct numbers, expected {len(want)}")
if "deniz.dietz@example.net" not in text:
    finish(False, "phone card details (e-mail) were not preferred")
if str(len(want)) not in re.findall(r"\d+", ans):
    finish(False, "answer lacks the count")
finish(True, f"{len(want)} merged contacts")
