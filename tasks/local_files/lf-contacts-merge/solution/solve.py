from pathlib import Path


def norm(p):
    digits = "".join(ch for ch in p if ch.isdigit() or ch == "+")
    if digits.startswith("00"):
        digits = "+" + digits[2:]
    elif digits.startswith("0"):
        digits = "+49" + digits[1:]
    return digits


def cards(path):
    for block in Path(path).read_text().split("BEGIN:VCARD")[1:]:
        lines = [l for l in block.splitlines() if l and not l.startswith(("END:", "VERSION"))]
        tel = next(l.split(":", 1)[1] for l in lines if l.startswith("TEL"))
        yield norm(tel), lines


merged = {}
for path in ("phone_contacts.vcf", "sim_contacts.vcf"):
    for key, lines in cards(path):
        merged.setdefault(key, lines)
out = []
for key, lines in merged.items():
    body = [("TEL;TYPE=CELL:" + key) if l.startswith("TEL") else l for l in lines]
    out.append("BEGIN:VCARD\nVERSION:3.0\n" + "\n".join(body) + "\nEND:VCARD\n")
Path("merged.vcf").write_text("".join(out))
print(f"contacts={len(merged)}")
