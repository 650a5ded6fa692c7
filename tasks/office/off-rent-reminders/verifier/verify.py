"""Grade off-rent-reminders.

``letters/`` must hold exactly one filled-in copy of the template per tenant with arrears
(A2, B2, C1; the tenants' data is written here, not read from the agent's ``tenants.csv``): a
valid .docx whose paragraphs read as the template's with the placeholders replaced, and whose
other parts (styles, settings, relationships, ...) are the template's, byte for byte. Tenants
without arrears get no letter. The answer is ``total_arrears=<EUR>`` (1738.70). The CSV and
the template must be left as they were.
"""

import hashlib
import sys
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import (
    Fail,
    Number,
    answer,
    check_files,
    expect,
    fields,
    main,
    pristine_path,
    zip_members,
)

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
TEMPLATE = "reminder_template.docx"
BODY = "word/document.xml"
DUE = {"A2": ("Samuel Okafor", "412.50"), "B2": ("Henrik Nyberg", "1240.00"), "C1": ("Ayla Kaya", "86.20")}
SPEC = {"total_arrears": Number(tol_abs=0.005, units=("EUR",))}


def paragraphs(xml: bytes) -> list[tuple[str, str | None]]:
    root = ET.fromstring(xml)
    out = []
    for p in root.iter(W + "p"):
        style = p.find(f"{W}pPr/{W}pStyle")
        out.append(
            ("".join(t.text or "" for t in p.iter(W + "t")), None if style is None else style.get(W + "val"))
        )
    return out


def check_letter(unit: str, template: zipfile.ZipFile) -> None:
    rel = f"letters/{unit}.docx"
    # Member count and inflated size are checked before any member is read (a zip bomb fails).
    parts = zip_members(rel, max_members=50, max_total=4_000_000, max_member=2_000_000)
    if sorted(parts) != sorted(template.namelist()):
        raise Fail(f"{rel} has parts {sorted(parts)[:12]}, not the template's")
    for name in template.namelist():
        if name != BODY and parts[name] != template.read(name):
            raise Fail(f"{rel}: {name} differs from the template")
    try:
        got = paragraphs(parts[BODY])
    except ET.ParseError:
        raise Fail(f"{rel}: {BODY} is not well-formed XML") from None
    name, amount = DUE[unit]
    fill = {"{{NAME}}": name, "{{AMOUNT}}": amount, "{{UNIT}}": unit, "{{DUE}}": "2024-07-15"}
    want = []
    for text, style in paragraphs(template.read(BODY)):
        for key, value in fill.items():
            text = text.replace(key, value)
        want.append((text, style))
    if got != want:
        raise Fail(f"{rel} text differs from the filled template: {[t for t, _ in got][:6]}")


def check() -> str:
    check_files(
        unchanged={
            rel: hashlib.sha256(pristine_path(rel).read_bytes()).hexdigest()
            for rel in ("tenants.csv", TEMPLATE)
        }
    )
    letters = Path("letters")
    if not letters.is_dir() or letters.is_symlink():
        raise Fail("letters/ is missing")
    made = sorted(p.name for p in letters.iterdir())
    if made != sorted(f"{unit}.docx" for unit in DUE):
        raise Fail(f"letters/ holds {made[:12]}, expected {sorted(f'{unit}.docx' for unit in DUE)}")
    with zipfile.ZipFile(pristine_path(TEMPLATE)) as template:
        for unit in sorted(DUE):
            check_letter(unit, template)
    total = round(sum(float(amount) for _, amount in DUE.values()), 2)
    return expect(fields(answer(), SPEC), {"total_arrears": total}, SPEC)


main(check)
