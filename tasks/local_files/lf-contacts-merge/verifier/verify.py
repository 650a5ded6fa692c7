"""Verifier for lf-contacts-merge: one vCard 3.0 card per person, the phone's details preferred.

The expected set of numbers is in expected.json (written by tasks/_build/gen_more.py); the
names and e-mails each card must carry come from the harness's pristine copy of the two exports
(never from /work, which the agent can edit). Both exports must be left as they were.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Number, answer, check_files, fields, main, pristine_path, read_text

NUMBERS = sorted(json.loads((Path(__file__).resolve().parent / "expected.json").read_text()))
INPUTS = {
    "phone_contacts.vcf": "df5d3e22106ce3384946990f47ce81fbebbccdc42262469fdde5e66fa817af52",
    "sim_contacts.vcf": "a127a100a6ae050ba75e84c32d8e3f4cfbb8810b19d89e7338708bf392548865",
}


def norm_phone(raw: str) -> str:
    """German number in any of +49 / 0049 / national 0 styles -> +49 followed by digits."""
    digits = "".join(ch for ch in raw if ch.isdigit() or ch == "+")
    if digits.startswith("00"):
        return "+" + digits[2:]
    if digits.startswith("0"):
        return "+49" + digits[1:]
    return digits


def parse_cards(text: str) -> list[dict[str, list[str]]]:
    """vCards as {PROPERTY: [values]} (folded lines joined, parameters dropped)."""
    unfolded: list[str] = []
    for line in text.replace("\r\n", "\n").split("\n"):
        if line[:1] in (" ", "\t") and unfolded:
            unfolded[-1] += line[1:]
        else:
            unfolded.append(line)
    cards: list[dict[str, list[str]]] = []
    current: dict[str, list[str]] | None = None
    for line in unfolded:
        if ":" not in line:
            if line.strip():
                raise Fail(f"merged.vcf line {line[:60]!r} is not a vCard property")
            continue
        key, value = line.split(":", 1)
        name = key.split(";", 1)[0].strip().upper().rsplit(".", 1)[-1]  # 'item1.TEL' -> 'TEL'
        if name == "BEGIN" and value.strip().upper() == "VCARD":
            if current is not None:
                raise Fail("merged.vcf has a card without END:VCARD")
            current = {}
        elif name == "END" and value.strip().upper() == "VCARD":
            if current is None:
                raise Fail("merged.vcf has END:VCARD without BEGIN")
            cards.append(current)
            current = None
        elif current is None:
            raise Fail(f"merged.vcf has {name} outside a card")
        else:
            current.setdefault(name, []).append(value.strip())
    if current is not None:
        raise Fail("merged.vcf ends inside a card")
    return cards


def check() -> str:
    check_files(unchanged=INPUTS)
    phone = {norm_phone(c["TEL"][0]): c for c in parse_cards(pristine_path("phone_contacts.vcf").read_text())}
    sim = {norm_phone(c["TEL"][0]): c for c in parse_cards(pristine_path("sim_contacts.vcf").read_text())}
    cards = parse_cards(read_text("merged.vcf"))
    seen: list[str] = []
    for card in cards:
        if card.get("VERSION") != ["3.0"]:
            raise Fail(f"a card has VERSION {card.get('VERSION')}, expected 3.0")
        if not card.get("FN") or not card["FN"][0] or not card.get("TEL"):
            raise Fail("a card lacks FN or TEL")
        numbers = {norm_phone(t) for t in card["TEL"]}
        if len(numbers) != 1:
            raise Fail(f"a card has several different numbers {sorted(numbers)}")
        number = numbers.pop()
        seen.append(number)
        if number in phone:
            want = phone[number]
            if (
                card["FN"][0] != want["FN"][0]
                or card.get("EMAIL", [""])[0].casefold() != want.get("EMAIL", [""])[0].casefold()
            ):
                raise Fail(f"card for {number} does not keep the phone's name and e-mail ({want['FN'][0]})")
        elif number in sim and card["FN"][0].casefold() != sim[number]["FN"][0].casefold():
            raise Fail(
                f"card for {number} is named {card['FN'][0]!r}, the SIM card says {sim[number]['FN'][0]!r}"
            )
    if sorted(seen) != NUMBERS:
        raise Fail(
            f"merged.vcf has {len(cards)} cards for {len(set(seen))} numbers; expected one card each for {len(NUMBERS)}"
        )
    got = fields(answer(), {"contacts": Number(units=("contacts", "cards", "people"))})["contacts"]
    if float(got) != len(NUMBERS):
        raise Fail(f"contacts={got}, expected {len(NUMBERS)}")
    return f"{len(NUMBERS)} merged contacts"


main(check)
