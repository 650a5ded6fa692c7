"""Verifier for lf-electricity-invoice: the most recent electricity invoice, not the reminder.

The invoice NE-2024-0388 asks for 142.67 EUR by 2024-03-22; the later reminder is about the
older invoice (131.20 EUR + 4.50 EUR fee by 2024-04-05) and is the trap. The inbox must be
left as it was.
"""

import datetime
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Date, Fail, Number, answer, check_files, fields, main, read_text

AMOUNT = 142.67
DUE = datetime.date(2024, 3, 22)
INBOX = {
    "inbox/01-newsletter.eml": "05169d228024b76e62bc343002e732bd9d69df17194a0694acec8a3216f54300",
    "inbox/02-invoice-feb.eml": "5ec99afad0cc9c1ebf70c681484db3d9d53325a3163a67e6561c9f7f56798b51",
    "inbox/03-reminder.eml": "5816c89b92835c191d250b427e82cc5f6b1fd457c35145572fff7af74e6497bd",
    "inbox/04-invoice-mar.eml": "bd5ce53a5a1758d7319a84aba5d89608c491ccd90e397c200553be4b92da3d2a",
    "inbox/05-water.eml": "96e6606ab6730b83d65efb9201b0a250c3a143a9d8c9ad22228e3d59c38d60ba",
    "inbox/06-friend.eml": "b4e3797483f6b3f851f09465ac271bb77d59f39c81e5a2245528a0b747ba5351",
}


def check() -> str:
    check_files(unchanged=INBOX)
    lines = [line.strip() for line in read_text("bills/electricity.txt").splitlines() if line.strip()]
    if len(lines) != 1 or not re.fullmatch(r"amount=142\.67\s+due=2024-03-22", lines[0]):
        raise Fail(f"bills/electricity.txt should be 'amount=142.67 due=2024-03-22', has {lines[:3]}")
    got = fields(answer(), {"amount": Number(units=("EUR",)), "due": Date()})
    if abs(float(got["amount"]) - AMOUNT) > 0.005:  # the reminder's amounts differ by >= 7 EUR
        raise Fail(f"amount {got['amount']} is not the invoice's {AMOUNT}")
    if got["due"] != DUE:
        raise Fail(f"due date {got['due']} is not {DUE}")
    return "invoice NE-2024-0388 found and recorded"


main(check)
