import re
import zipfile
import xml.etree.ElementTree as ET

NS = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main"}
M = "{" + NS["m"] + "}"


def read_xlsx(path):
    """{sheet name: rows as lists of str/float} with the standard library only.

    Handles shared strings (Excel) and inline strings (openpyxl, LibreOffice exports)."""
    zf = zipfile.ZipFile(path)
    strings = []
    if "xl/sharedStrings.xml" in zf.namelist():
        sst = ET.fromstring(zf.read("xl/sharedStrings.xml"))
        strings = ["".join(t.text or "" for t in si.iter(M + "t")) for si in sst.findall("m:si", NS)]
    wb = ET.fromstring(zf.read("xl/workbook.xml"))
    out = {}
    for i, sheet in enumerate(wb.find("m:sheets", NS), 1):
        root = ET.fromstring(zf.read(f"xl/worksheets/sheet{i}.xml"))
        rows = []
        for row in root.iter(M + "row"):
            cells = []
            for c in row.findall("m:c", NS):
                col = re.match(r"[A-Z]+", c.get("r")).group(0)
                idx = sum((ord(ch) - 64) * 26**k for k, ch in enumerate(reversed(col))) - 1
                while len(cells) < idx:
                    cells.append(None)
                kind, v = c.get("t"), c.findtext("m:v", None, NS)
                if kind == "inlineStr":
                    cells.append("".join(t.text or "" for t in c.iter(M + "t")))
                elif kind == "s":
                    cells.append(strings[int(v)])
                elif kind in ("str", "e"):
                    cells.append(v)
                else:
                    cells.append(float(v) if v else None)
            rows.append(cells)
        out[sheet.get("name")] = rows
    return out


book = read_xlsx("payroll_2024.xlsx")
people = {r[0]: (r[1], r[3]) for r in book["Employees"][1:]}
hours = {pid: 0.0 for pid in people}
for pid, date, h in book["Hours"][1:]:
    if date.startswith("2024-03"):
        hours[pid] += h
lines = ["id,name,gross"]
total = 0.0
for pid in sorted(people):
    gross = round(hours[pid] * people[pid][1] + 1e-9, 2)
    total += gross
    lines.append(f"{pid},{people[pid][0]},{gross:.2f}")
open("payroll_march.csv", "w").write("\n".join(lines) + "\n")
print(f"total_gross={total:.2f}")
