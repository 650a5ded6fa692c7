"""The final answer as a whole: a second, different candidate anywhere fails; restating passes."""

from __future__ import annotations

import pytest
from agbench_grading import AmbiguousAnswer, Choice, Date, Fail, Number, RelPath, Text, fields

CONSUMPTION = {"consumption": Number(tol_abs=0.005, units=("l/100 km",))}
TAX = {"tax": Number(tol_abs=0.005, units=("EUR",)), "direction": Choice("due", "refund")}


@pytest.mark.parametrize(
    "text",
    [
        "consumption=5.72\nWait, I made a slip above. The correct consumption is actually 6.92.",
        "consumption=5.72\nDepending on how the data is read, it could also be 6.92.",
        "consumption=5.72\nconsumption_alternative=6.92",
        "consumption=5.72\nalt consumption: 6.92",
        "consumption=5.72, 6.92",
        "consumption=5.72, or 6.92 if the first fill-up counts",
        '{"consumption": 5.72, "consumption": 6.92}',
        "consumption=5.72\nSo the consumption is 6.92 l/100 km.",
        "consumption=5.72\nThe answer is 6.92.",
        "consumption=5.72\nOops, I made a mistake. It should be 6.92.",
        "consumption=5.72 (not 100% sure)",
        "consumption=5.72\nI'm not sure about this.",
        "consumption=5.72\nconsumption2=6.92",
    ],
)
def test_a_second_different_candidate_is_ambiguous(text: str) -> None:
    with pytest.raises(AmbiguousAnswer, match=r"^ambiguous_answer: "):
        fields(text, CONSUMPTION)


@pytest.mark.parametrize(
    "text",
    [
        "consumption = 197.2 / 3445 × 100 = 5.72 l/100 km\nconsumption=5.72",
        "consumption = 197.2 / 3445 * 100\nconsumption=5.72",
        "The consumption over 3445 km is 5.72 l/100 km.\nconsumption=5.72",
        "consumption=5.72.",
        "consumption=5.72 (full-to-full method)",
        "consumption=5.72\nThat is a consumption of 5.72 l/100 km, computed full to full.",
        '{"consumption": 5.72}',
        "Litres after the first full fill-up: 197.2; distance 3445 km.\nconsumption=5.720",
        "consumption=5.72\nWait, I made a slip above in the litres: 197.2 is right, so consumption is 5.72.",
        "Final consumption: 5.72\nconsumption=5.72",
        "consumption=5.72 (rounded from 5.7243)",
    ],
)
def test_restating_the_same_value_passes(text: str) -> None:
    assert fields(text, CONSUMPTION) == {"consumption": pytest.approx(5.72)}


def test_other_quantities_in_working_are_no_candidates() -> None:
    text = "Taxable income is 52,000 EUR; the tax rate is 30%.\ntax=4500\ndirection=due"
    assert fields(text, TAX) == {"tax": 4500.0, "direction": "due"}


def test_a_contradicting_conclusion_is_ambiguous() -> None:
    with pytest.raises(AmbiguousAnswer):
        fields("tax=4500\ndirection=due\nIn other words, you will receive a refund.", TAX)
    assert fields("tax=4500\ndirection=due\nIn other words, the amount is due.", TAX)["direction"] == "due"


@pytest.mark.parametrize(
    "raw", ["probably photos, not 100% sure", "kids, I think", "BACKUP_TARGET? (not sure)", "~73195028"]
)
def test_hedges_in_free_text_fail(raw: str) -> None:
    with pytest.raises(AmbiguousAnswer):
        fields(f"what={raw}", {"what": Text()})


def test_trailing_punctuation_passes() -> None:
    assert fields("largest=downloads/big.iso.", {"largest": RelPath("downloads")}) == {"largest": "big.iso"}
    assert fields("when: 21 May 2024.", {"when": Date()})["when"].isoformat() == "2024-05-21"
    assert fields("subject=Garage sale on Saturday.", {"subject": Text()}) == {
        "subject": "garage sale on saturday"
    }


@pytest.mark.parametrize(
    ("raw", "label"),
    [
        ("the 72-hour visitor pass", "72-hour pass"),
        ("72-hour pass.", "72-hour pass"),
        ("buy the three day passes", "day passes"),
        ("a day pass each day", "day passes"),
    ],
)
def test_a_label_reads_through_words_around_it(raw: str, label: str) -> None:
    choice = Choice("72-hour pass", "day passes")
    assert fields(f"cheaper={raw}", {"cheaper": choice}) == {"cheaper": label}


@pytest.mark.parametrize(
    "raw", ["not the day passes", "the 72-hour pass or the day passes", "72-hour pass vs day passes"]
)
def test_a_label_with_negation_or_two_labels_fails(raw: str) -> None:
    with pytest.raises(Fail):
        fields(f"cheaper={raw}", {"cheaper": Choice("72-hour pass", "day passes")})
