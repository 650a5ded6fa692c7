"""The harness's own time between an attempt's calls, fitted from one run or several."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from agbench.calibration.harness_fit import fit_harness, harness_gaps, request_overheads
from agbench.calibration.usage_fit import fit_tools
from agbench.store import RunStore

REFERENCE = Path(__file__).resolve().parents[2] / "calibration" / "reference" / "run"


def _later_recording(tables: dict[str, pd.DataFrame], shift_s: float) -> dict[str, pd.DataFrame]:
    """The same run recorded again ``shift_s`` later under another run id."""
    out = {}
    for name in ("task_runs", "model_calls", "tool_calls"):
        frame = tables[name].copy()
        frame["run_id"] = frame["run_id"].astype(str) + "-again"
        for column in ("t_start", "t_end"):
            if column in frame:
                frame[column] = frame[column] + shift_s
        out[name] = frame
    return out


@pytest.mark.skipif(not (REFERENCE / "run.json").is_file(), reason="the reference dataset is not here")
def test_two_recordings_of_one_sweep_give_the_gaps_of_each_not_the_hours_between() -> None:
    tables = RunStore.open(REFERENCE).tables()
    again = _later_recording(tables, 3 * 3600.0)
    both = {k: pd.concat([tables[k], again[k]], ignore_index=True) for k in again}
    gaps, edges = harness_gaps(tables["task_runs"], tables["model_calls"], tables["tool_calls"])
    gaps2, edges2 = harness_gaps(both["task_runs"], both["model_calls"], both["tool_calls"])
    assert len(gaps) > 10
    np.testing.assert_allclose(np.sort(gaps2), np.sort(np.concatenate([gaps, gaps])))
    np.testing.assert_allclose(np.sort(edges2), np.sort(np.concatenate([edges, edges])))
    one = fit_harness(tables["task_runs"], tables["model_calls"], tables["tool_calls"])[0]
    two = fit_harness(both["task_runs"], both["model_calls"], both["tool_calls"])[0]
    assert two["behaviour"]["turn_gap_s"] == pytest.approx(one["behaviour"]["turn_gap_s"])


@pytest.mark.skipif(not (REFERENCE / "run.json").is_file(), reason="the reference dataset is not here")
def test_the_fit_keeps_each_measured_times_spread_for_jittered_runs() -> None:
    tables = RunStore.open(REFERENCE).tables()
    gaps, edges = harness_gaps(tables["task_runs"], tables["model_calls"], tables["tool_calls"])
    fitted = fit_harness(tables["task_runs"], tables["model_calls"], tables["tool_calls"])[0]
    assert fitted["behaviour"]["turn_gap_cv"] == pytest.approx(np.std(gaps, ddof=1) / np.mean(gaps))
    assert fitted["behaviour"]["harness_overhead_cv"] == pytest.approx(np.std(edges, ddof=1) / np.mean(edges))
    overheads = request_overheads(tables["model_calls"])
    assert fitted["server"]["request_overhead_cv"] == pytest.approx(
        np.std(overheads, ddof=1) / np.mean(overheads)
    )
    assert 0.1 < fitted["behaviour"]["turn_gap_cv"] < 2.0  # live gaps vary, but not wildly
    tools = fit_tools(tables["tool_calls"])[0]
    python = tables["tool_calls"].query("tool == 'python' and wall_s > 0")["wall_s"]
    assert tools["wall_cv_by_tool"]["python"] == pytest.approx(python.std() / python.mean())
