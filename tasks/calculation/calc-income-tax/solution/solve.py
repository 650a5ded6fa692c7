import re
from pathlib import Path

s = Path("annual_summary.txt").read_text()
num = lambda label: float(re.search(label + r":\s*([\d,.]+)", s).group(1).replace(",", ""))
taxable = num("Gross salary") - num("Allowable deductions")
brackets = [(11000, 0.0), (30000, 0.14), (62000, 0.28), (float("inf"), 0.42)]
tax, lower = 0.0, 0.0
for upper, rate in brackets:
    if taxable > lower:
        tax += (min(taxable, upper) - lower) * rate
    lower = upper
diff = tax - num("Tax already withheld")
print(f"tax={tax:.2f} " + (f"due={diff:.2f}" if diff > 0 else f"refund={-diff:.2f}"))
