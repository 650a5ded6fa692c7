from pathlib import Path

WITHDRAW = {(2025, 7): 300000, (2026, 12): 150000}
balance, deposit = 1240000, 65000  # cents
year, month = 2024, 1
rows = []
while True:
    if month == 1 and year > 2024:
        deposit = round(deposit * 1.03)
    balance += round(balance * 0.031 / 12)
    balance += deposit
    balance -= WITHDRAW.get((year, month), 0)
    rows.append(f"{year}-{month:02d},{balance // 100}.{balance % 100:02d}")
    if balance >= 5000000:
        break
    year, month = (year + 1, 1) if month == 12 else (year, month + 1)
Path("projection.csv").write_text("month,balance\n" + "\n".join(rows) + "\n")
print("month={} balance={}".format(*rows[-1].split(",")))
