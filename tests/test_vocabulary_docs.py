"""docs/vocabulary.md's tables are the ones generated from the enums, and cover every member."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import pytest

from agbench import vocabulary_docs
from agbench.status import Status

PAGE = Path(__file__).resolve().parents[1] / "docs" / "vocabulary.md"


def test_committed_tables_are_generated() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert vocabulary_docs.update_page(text) == text, (
        "docs/vocabulary.md is stale: run `python -m agbench.vocabulary_docs docs/vocabulary.md`"
    )
    for name in vocabulary_docs.render_tables():
        assert f"<!-- table: {name} -->" in text


def test_every_status_is_on_the_page() -> None:
    text = PAGE.read_text(encoding="utf-8")
    for status in Status:
        assert f"| `{status.value}` |" in text
    assert "| `failed_setup` |" in text


def test_a_member_without_a_description_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    class Shrunk(StrEnum):
        A = "a"
        B = "b"

    with pytest.raises(KeyError, match="Shrunk members without a description: b"):
        vocabulary_docs._table(Shrunk, {Shrunk.A: "x"}, "meaning")


def test_a_stale_table_is_rewritten() -> None:
    stale = "intro\n<!-- table: Endpoint -->\n| old |\n<!-- end table -->\nrest\n"
    fresh = vocabulary_docs.update_page(stale)
    assert "| old |" not in fresh
    assert "| `local` |" in fresh
    assert fresh.startswith("intro\n")
    assert fresh.endswith("\nrest\n")
