"""A tiny personal ledger: parse bank CSV exports and summarise them per month."""

from ledger.core import Entry, monthly_totals, parse_csv

__all__ = ["Entry", "monthly_totals", "parse_csv"]
