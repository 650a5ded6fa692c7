from pathlib import Path

p = Path("budget/ledger/core.py")
p.write_text(p.read_text().replace("month = e.date[:8]", "month = e.date[:7]"))
print("function=monthly_totals")
