"""The generic answer classes of ``tasks check`` do what their names say, on a real template."""

from __future__ import annotations

import pytest
from agbench_grading import AmbiguousAnswer, Choice, Number, fields

from agbench.live.taskcases import CLASSES, answer_class_cases, other_value

SPEC = {"cheaper": Choice("72-hour pass", "day passes"), "saving": Number(tol_abs=0.005, units=("EUR",))}
ORACLE = "cheaper=72-hour pass\nsaving=3.80"


@pytest.mark.parametrize(
    ("value", "other"),
    [
        ("3.80", "13.81"),
        ("2024-05-21", "2024-05-24"),
        ("08:15", "13:15"),
        ("583920", "694031"),
        ("none", None),
    ],
)
def test_another_value_of_the_same_kind(value: str, other: str | None) -> None:
    assert other_value(value) == other


def test_each_answer_class_is_graded_as_it_must_be() -> None:
    cases, not_applicable = answer_class_cases(ORACLE)
    assert not not_applicable
    assert {c.cls for c in cases} == set(CLASSES[:6])
    for case in cases:
        assert case.answer is not None
        if case.must_succeed:
            assert fields(case.answer, SPEC)["saving"] == pytest.approx(3.8), case.name
        else:
            with pytest.raises(AmbiguousAnswer):
                fields(case.answer, SPEC)


def test_an_answer_without_a_number_is_not_applicable() -> None:
    cases, not_applicable = answer_class_cases("function=monthly_totals")
    assert not cases
    assert {n.cls for n in not_applicable} == set(CLASSES[:6])
