"""Verifier for rt-recall-check: which appliances fall in a recall's model and serial range.

From the corpus recall notices: the kettle, the baby monitor (serial on the range's upper
bound) and the heater fan are recalled; the hair dryer's serial is one below its range and the
lamp and power bank are outside theirs. The answer is parsed as a list of appliance names and
must be exactly that set; the inventory must stay as it was.
"""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Field, answer, check_files, fields, main, read_text

RECALLED = ["kettle", "baby monitor", "heater fan"]
INVENTORY = {"appliances.csv": "c45c2b19cc70e372c3aa6190d7bed5c586a35fbbf422ac2b09c2ae2073ff9222"}


HEDGE = re.compile(r"\b(or|maybe|perhaps|possibly|probably|either|unsure)\b|\?", re.IGNORECASE)


class ItemList(Field):
    """A list of item names ('kettle, baby monitor and heater fan') -> sorted casefolded names;
    a hedge ('maybe', 'or', '?') fails rather than counting as a list item."""

    def parse(self, raw: str) -> tuple[str, ...]:
        if HEDGE.search(raw):  # checked before notes in parentheses are dropped
            raise Fail(f"hedged answer {raw.strip()!r}")
        value = re.sub(r"\([^()]*\)", " ", str(super().parse(raw)).casefold())  # '(Kettleson KX-2)'
        items = [
            re.sub(r"^(?:the|my)\s+", "", i.strip(" .\"'")) for i in re.split(r",|;|\band\b|&|\+", value)
        ]
        return tuple(sorted(i for i in items if i))


def check() -> str:
    check_files(unchanged=INVENTORY)
    listed = [line.strip() for line in read_text("recalled.txt").splitlines() if line.strip()]
    if listed != RECALLED:
        raise Fail(f"recalled.txt is {listed[:8]}, expected {RECALLED} in the CSV's order")
    got = fields(answer(), {"recalled": ItemList()})["recalled"]
    if got != tuple(sorted(RECALLED)):
        raise Fail(f"recalled={', '.join(got)}, expected exactly {', '.join(RECALLED)}")
    return "recalled appliances found"


main(check)
