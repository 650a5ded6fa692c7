"""The harness's own time between an attempt's calls, fitted from one run or several."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from agbench.calibration.harness_fit import fit_harness, harness_gaps
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
