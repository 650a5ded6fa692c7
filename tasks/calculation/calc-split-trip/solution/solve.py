import csv
from fractions import Fraction
from pathlib import Path

people = ["Amara", "Bjorn", "Chen", "Dalia"]
bal = {p: Fraction(0) for p in people}
lines = [l for l in Path("trip_expenses.csv").read_text().splitlines() if not l.startswith("#")]
for row in csv.DictReader(lines):
    amount = Fraction(row["amount_eur"])
    among = people if row["split_among"] == "all" else row["split_among"].split(";")
    bal[row["payer"]] += amount
    for p in among:
        bal[p] -= amount / len(among)
Path("balances.csv").write_text("name,balance\n" + "".join(f"{p},{float(bal[p]):.2f}\n" for p in people))
top = max(people, key=lambda p: bal[p])
print(f"person={top} amount={float(bal[top]):.2f}")
