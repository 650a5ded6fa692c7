import unittest
from decimal import Decimal
from pathlib import Path

from ledger import monthly_totals, parse_csv

DATA = Path(__file__).parent / "export.csv"


class LedgerTest(unittest.TestCase):
    def test_parse(self):
        entries = parse_csv(DATA)
        self.assertEqual(len(entries), 6)
        self.assertEqual(entries[0].amount, Decimal("4215.00"))

    def test_monthly_totals(self):
        totals = monthly_totals(parse_csv(DATA))
        self.assertEqual(list(totals), ["2024-03", "2024-04"])
        self.assertEqual(totals["2024-03"], Decimal("3124.51"))


if __name__ == "__main__":
    unittest.main()
