import re
import zipfile
import xml.etree.ElementTree as ET

root = ET.fromstring(zipfile.ZipFile("meeting_2024-03-03.odt").read("content.xml"))
TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
items = []
for p in root.iter(TEXT + "p"):
    line = "".join(p.itertext())
    m = re.match(r"ACTION Nadia Petrova: (.*) \(due (\d{4}-\d{2}-\d{2})\)", line)
    if m:
        items.append((m.group(2), m.group(1)))
items.sort()
open("nadia_todo.txt", "w").write("".join(f"{d} {t}\n" for d, t in items))
print(f"items={len(items)}")
