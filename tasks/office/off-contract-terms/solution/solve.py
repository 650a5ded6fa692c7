import calendar
import re
import zipfile
import xml.etree.ElementTree as ET

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
root = ET.fromstring(zipfile.ZipFile("service_agreement.docx").read("word/document.xml"))
text = "\n".join("".join(t.text or "" for t in p.iter(W + "t")) for p in root.iter(W + "p"))
value = re.search(r"Total contract value\s*EUR ([\d,.]+)", text).group(1).replace(",", "")
months = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]
m = re.search(r"starts on (\d+) (\w+) (\d{4}) and runs for (\d+) months", text)
start_month = months.index(m.group(2)) + 1
year, month0 = int(m.group(3)), start_month - 1 + int(m.group(4)) - 1  # last month of the term
year += month0 // 12
month = month0 % 12 + 1
end = f"{year}-{month:02d}-{calendar.monthrange(year, month)[1]:02d}"
print(f"value={float(value):.2f}\nend={end}")
