import csv
from datetime import datetime

peak = off = 0.0
with open("meter_2024-03.csv", newline="") as fh:
    for row in csv.DictReader(fh):
        t = datetime.strptime(row["timestamp"], "%Y-%m-%d %H:%M")
        if t.weekday() < 5 and 7 <= t.hour < 21:
            peak += float(row["kwh"])
        else:
            off += float(row["kwh"])
print(f"peak={peak:.3f} offpeak={off:.3f} total={peak * 0.38 + off * 0.22 + 11.90:.2f}")
