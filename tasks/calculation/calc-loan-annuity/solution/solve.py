import re
from pathlib import Path

text = Path("loan_offer.txt").read_text()
principal = float(re.search(r"Principal: ([\d,.]+)", text).group(1).replace(",", ""))
rate = float(re.search(r"rate: ([\d.]+) %", text).group(1)) / 100 / 12
n = int(re.search(r"Term: (\d+)", text).group(1))
payment = round(principal * rate / (1 - (1 + rate) ** -n), 2)
interest = round(n * payment - principal, 2)
print(f"payment={payment:.2f} interest={interest:.2f}")
