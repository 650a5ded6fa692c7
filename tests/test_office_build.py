"""The office tasks' inputs are reproducible: the build script rewrites them byte for byte.

``tasks/_build/gen_office.py`` writes the xlsx/docx inputs with openpyxl and python-docx and
fixes everything those libraries would stamp with the current time, so a rebuild changes no
committed file. Run into a temporary folder, never over the suite.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from agbench.task import suite_root

BUILD = Path(__file__).resolve().parent.parent / "tasks" / "_build"
GENERATORS = ("expenses", "contract", "minutes", "payroll", "letters", "budget")


def load_gen_office() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_office", BUILD / "gen_office.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_office_build_reproduces_the_committed_inputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("openpyxl")
    pytest.importorskip("docx")
    monkeypatch.setattr(sys, "path", list(sys.path))  # gen_office puts tasks/_build on it
    gen_office = load_gen_office()
    monkeypatch.setattr(gen_office, "TASKS", tmp_path)
    for name in GENERATORS:
        getattr(gen_office, name)()
    built = sorted(p for p in tmp_path.rglob("*") if p.is_file() and "solution" not in p.parts)
    assert len([p for p in built if p.suffix in (".xlsx", ".docx")]) == 5
    committed = suite_root() / "office"
    for path in built:
        rel = path.relative_to(tmp_path)
        assert path.read_bytes() == (committed / rel).read_bytes(), f"{rel} differs from the committed file"


def test_formula_cells_keep_their_cached_results() -> None:
    """A stdlib reader sees the Q1 totals without evaluating formulas, as in an Excel file."""
    openpyxl = pytest.importorskip("openpyxl")
    path = suite_root() / "office" / "off-budget-variance" / "environment" / "budget_q1_2024.xlsx"
    formulas = openpyxl.load_workbook(path)["Budget"]
    values = openpyxl.load_workbook(path, data_only=True)["Budget"]
    for row in range(2, formulas.max_row + 1):
        assert formulas.cell(row, 5).value == f"=SUM(B{row}:D{row})"
        assert values.cell(row, 5).value == sum(values.cell(row, c).value for c in (2, 3, 4))
