# https://corpus.local/warranty/kettleson: 30 months from purchase; the last valid claim day is
# the day before the same calendar day 30 months later.
from datetime import date, timedelta
from pathlib import Path

bought = date(2022, 11, 18)
months = bought.month - 1 + 30
end = date(bought.year + months // 12, months % 12 + 1, bought.day) - timedelta(days=1)
Path("claim_deadline.txt").write_text(end.isoformat() + "\n")
print(f"deadline={end.isoformat()}")
