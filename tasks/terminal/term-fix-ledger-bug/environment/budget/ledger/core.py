import csv
from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class Entry:
    date: str  # YYYY-MM-DD
    payee: str
    amount: Decimal  # negative = money out


def parse_csv(path):
    """Read a bank export with columns date;payee;amount (decimal comma)."""
    with open(path, newline="") as fh:
        rows = csv.DictReader(fh, delimiter=";")
        return [Entry(r["date"], r["payee"], Decimal(r["amount"].replace(",", "."))) for r in rows]


def monthly_totals(entries):
    """Net amount per month, keyed 'YYYY-MM', in chronological order."""
    totals = {}
    for e in sorted(entries, key=lambda e: e.date):
        month = e.date[:8]
        totals[month] = totals.get(month, Decimal("0")) + e.amount
    return totals
