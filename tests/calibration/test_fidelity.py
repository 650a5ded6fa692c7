"""bench/fidelity.py on the committed open-loop reference: every target gets a held-out figure.

Only the load reference (``calibration/reference/load``) is used here: its open-loop simulation
takes seconds, where the sweep references' take minutes. The figures are measured, not asserted
(they depend on how quiet the machine was while the reference was recorded); what is asserted
is that the fit used the two lowest rates only and that each target is judged on held-out rows.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
LOAD_REFERENCE = ROOT / "calibration" / "reference" / "load"

pytestmark = pytest.mark.skipif(
    not (LOAD_REFERENCE / "run.json").is_file(), reason="the load reference is not in this checkout"
)


def _fidelity() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fidelity", ROOT / "bench" / "fidelity.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["fidelity"] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_load_reference_is_fitted_low_and_judged_high(tmp_path: Path) -> None:
    fidelity = _fidelity()
    assert fidelity.is_load_run(LOAD_REFERENCE)
    report = fidelity.held_out_report(LOAD_REFERENCE, tmp_path, [1, 2], 2)
    assert report["fitted_levels"] == ["rate-0.2", "rate-0.5"]
    for target in fidelity.LOAD_TARGETS:
        rows = report["metrics"][target.metric]["rows"]
        assert [r["held_out"] for r in rows] == [False, False, True, True]
        verdict = fidelity.judge(report, target)
        assert verdict["rows"] == 2
        assert verdict["figure"] == verdict["worst"]  # "each within": the worst level counts
        assert verdict["met"] == (verdict["worst"] <= target.bound)


@pytest.mark.slow
def test_a_directory_that_is_not_a_run_is_a_one_line_error(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "fidelity.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "not a run directory" in result.stderr
