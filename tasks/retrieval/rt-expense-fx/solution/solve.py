# Rates per 1 EUR from https://corpus.local/fx/reference-rates-<YYYY-MM> (known facts).
import csv
from pathlib import Path

RATES = {'2024-01': {'USD': 1.1344, 'GBP': 0.9385, 'CHF': 0.982, 'SEK': 11.606, 'NOK': 10.706, 'PLN': 4.1684}, '2024-02': {'USD': 1.0979, 'GBP': 0.9064, 'CHF': 1.0355, 'SEK': 11.2819, 'NOK': 12.0071, 'PLN': 4.0138}, '2024-03': {'USD': 1.0202, 'GBP': 0.8751, 'CHF': 1.0371, 'SEK': 12.1497, 'NOK': 11.5109, 'PLN': 3.9701}, '2024-04': {'USD': 1.1164, 'GBP': 0.9348, 'CHF': 1.0039, 'SEK': 12.2379, 'NOK': 11.0538, 'PLN': 4.2538}}
total = 0.0
with open("travel_expenses.csv", newline="") as fh:
    for row in csv.DictReader(fh):
        amount = float(row["amount"])
        cur = row["currency"]
        total += amount if cur == "EUR" else amount / RATES[row["date"][:7]][cur]
Path("reimbursement.txt").write_text(f"{total:.2f}\n")
print(f"total={total:.2f}")
