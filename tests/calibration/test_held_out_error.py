"""The held-out error: measured from validation reports, shipped, and the least a held-out band is."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agbench.calibration import held_out_error
from agbench.calibration.held_out_error import conformal_quantile, held_out_reach, measure
from agbench.cli import main
from agbench.errors import AgbenchError

REPO = Path(__file__).resolve().parents[2]


def _row(concurrency: int, live: float | None, sim: float | None, held_out: bool = True) -> dict[str, Any]:
    return {"concurrency": concurrency, "live": live, "sim": sim, "held_out": held_out}


def _report(**rows: list[dict[str, Any]]) -> dict[str, Any]:
    kinds = {"success": "count"}
    return {"metrics": {name: {"kind": kinds.get(name, "relative"), "rows": r} for name, r in rows.items()}}


def test_the_quantile_is_the_split_conformal_rank_and_needs_nine_rows() -> None:
    errors = [0.01 * k for k in range(1, 10)]  # nine rows: ceil(0.9 * 10) = 9th smallest
    assert conformal_quantile(errors) == pytest.approx(0.09)
    assert conformal_quantile([-e for e in errors]) == pytest.approx(0.09)  # a miss either way
    assert conformal_quantile(errors[:8]) is None
    nineteen = [0.01 * k for k in range(1, 20)]  # ceil(0.9 * 20) = 18th smallest
    assert conformal_quantile(nineteen) == pytest.approx(0.18)


def test_only_held_out_rows_with_both_sides_positive_count_under_the_figures_dotted_key() -> None:
    held = [_row(8, 100.0 * math.exp(0.01 * k), 100.0) for k in range(1, 10)]
    report = _report(
        suite_wall_s=[
            *held,
            _row(1, 500.0, 100.0, held_out=False),
            _row(8, None, 100.0),
            _row(8, 0.0, 100.0),
        ],
        local_model_s=held,
        success=[_row(8, 3.0, 1.0) for _ in range(9)],
    )
    got = measure([report], ["r"])
    assert got["rows"] == {"suite_wall_s": 9, "time_breakdown_s.local_model": 9}
    assert got["reach"]["suite_wall_s"] == pytest.approx(0.09)  # the fitted row's 5x is not counted
    assert "success" not in got["reach"]
    with pytest.raises(AgbenchError, match="at least 9"):
        measure([_report(suite_wall_s=held[:5])])
    with pytest.raises(AgbenchError, match="at least one"):
        measure([])


def test_calibrate_lays_the_shipped_held_out_error_unless_told_otherwise(tmp_path: Path) -> None:
    from agbench.calibration import calibrate
    from agbench.sim.plain_data import load_toml

    run = REPO / "calibration" / "reference" / "run"
    fit = load_toml(calibrate([run], tmp_path / "a.toml", [1]))["fit"]
    shipped = held_out_error.load(held_out_error.default_file())
    assert held_out_reach(fit) == shipped["reach"]
    assert "held_out_coverage.py" in fit["held_out_error"]["source"]
    assert shipped["rows"]["suite_wall_s"] >= 9
    without = load_toml(calibrate([run], tmp_path / "b.toml", [1], held_out_error=None))["fit"]
    assert held_out_reach(without) == {}


def test_bad_input_is_a_one_line_error_and_a_good_report_is_measured(tmp_path: Path) -> None:
    bad = tmp_path / "error.toml"
    bad.write_text("[reach]\nsuite_wall_s = -1\n")
    with pytest.raises(AgbenchError, match="not a held-out error"):
        held_out_error.load(bad)
    runner = CliRunner()
    result = runner.invoke(
        main, ["held-out-error", str(tmp_path / "none.json"), "-o", str(tmp_path / "e.toml")]
    )
    assert result.exit_code != 0
    assert "validation report not found" in result.output
    garbled = tmp_path / "garbled.json"
    garbled.write_text("{")
    result = runner.invoke(main, ["held-out-error", str(garbled), "-o", str(tmp_path / "e.toml")])
    assert result.exit_code != 0
    assert "not a validation report" in result.output
    listed = tmp_path / "list.json"
    listed.write_text("[1, 2]")
    result = runner.invoke(main, ["held-out-error", str(listed), "-o", str(tmp_path / "e.toml")])
    assert result.exit_code != 0
    assert "not a validation report (no metrics table)" in result.output
    good = tmp_path / "validation.json"
    good.write_text(
        json.dumps(_report(suite_wall_s=[_row(4, 100.0 * math.exp(0.02 * k), 100.0) for k in range(9)]))
    )
    result = runner.invoke(main, ["held-out-error", str(good), "-o", str(tmp_path / "e.toml")])
    assert result.exit_code == 0, result.output
    assert held_out_error.load(tmp_path / "e.toml")["reach"]["suite_wall_s"] == pytest.approx(0.16)
    result = runner.invoke(
        main,
        [
            "calibrate",
            str(tmp_path),
            "-o",
            str(tmp_path / "p.toml"),
            "--held-out-error",
            str(bad),
            "--no-held-out-error",
        ],
    )
    assert result.exit_code != 0
    assert "exclude each other" in result.output
