"""``agbench load`` against the real llama-server: exact sizes, open-loop timing, resume."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from agbench.config import ServerSettings
from agbench.live.load import LoadOptions, run_load
from agbench.load import TokenDistribution, rate_level
from agbench.store import RunStore

pytestmark = [pytest.mark.server, pytest.mark.slow]


def test_load_run_sizes_requests_exactly_and_resumes(tmp_path: Path) -> None:
    p, o = TokenDistribution.parse("48"), TokenDistribution.parse("6")
    levels = [rate_level(r, 4, p, o, poisson=False, seed=0) for r in (1.0, 8.0)]
    out = tmp_path / "load"
    options = LoadOptions(
        levels=levels, out=out, server=ServerSettings(n_ctx=2048, n_parallel=2, threads=1), quiet=True
    )
    run_load(options)
    calls = pd.read_parquet(out / "traces" / "model_calls.parquet")
    assert len(calls) == 8
    assert (calls["error_class"] == "").all()
    # exact prompt sizes through /tokenize, forced output length through ignore_eos
    assert set(calls["prompt_tokens"]) == {48}
    assert set(calls["completion_tokens"]) == {6}
    # open loop: at 8/s the four requests are sent within half a second, whatever the server does
    fast = calls[calls["task"] == "load@rate-8"].sort_values("t_start")
    assert fast["t_start"].iloc[-1] - fast["t_start"].iloc[0] < 1.0
    assert len(pd.read_parquet(out / "traces" / "server_samples.parquet")) > 0
    summary = json.loads((out / "summary.json").read_text())
    assert [lv["completed"] for lv in summary["levels"]] == [4, 4]
    assert all(lv["ttft_p50_s"] and lv["itl_p50_s"] for lv in summary["levels"])
    assert "<svg" in (out / "summary.html").read_text()
    # a resumed, already finished run sends nothing and counts nothing twice
    run_load(LoadOptions(levels=[], out=out, quiet=True), resume=True)
    assert len(RunStore.open(out).table("model_calls")) == 8
