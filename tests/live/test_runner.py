"""Live sweeps end to end: real bubblewrap sandboxes, the real task suite, real llama-server.

- the oracle agent at C = 4 gets every task of the suite right (and never more than 4 run at once);
- a small model-agent sweep (3 tasks × LO, CO, HCL, HLL × C = 1, 2) against the managed
  SmolLM2 server with a second one standing in for the cloud produces a complete run
  directory whose traces are consistent, and no API key reaches any of its files;
- bad input is a one-line AgbenchError before anything runs.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from agbench.config import Architecture
from agbench.errors import AgbenchError
from agbench.live.runner import SweepOptions, run_sweep, select_run_tasks, task_order
from agbench.store import RunStore
from agbench.task import load_suite

pytestmark = [
    pytest.mark.bwrap,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed"),
]

ALL = [Architecture.LO, Architecture.CO, Architecture.HCL, Architecture.HLL]
FAKE_KEY = "sk-agbench-FAKE-0123456789abcdefTESTKEY"


def options(tmp_path: Path, **kw: object) -> SweepOptions:
    base = {"out": tmp_path / "run", "runs_root": tmp_path / "runs", "quiet": True}
    base.update(kw)
    return SweepOptions(**base)  # type: ignore[arg-type]


def max_overlap(rows: pd.DataFrame) -> int:
    events = sorted([(t, 1) for t in rows.t_start] + [(t, -1) for t in rows.t_end], key=lambda e: (e[0], e[1]))
    now = peak = 0
    for _, step in events:
        now += step
        peak = max(peak, now)
    return peak


def test_oracle_at_c4_solves_every_task_of_the_suite(tmp_path: Path) -> None:
    suite = load_suite()
    run_dir = run_sweep(options(tmp_path, archs=[Architecture.LO], concurrency=[4], agent="oracle"))
    runs = RunStore.open(run_dir).table("task_runs")
    assert sorted(runs.task) == sorted(t.id for t in suite)
    failed = runs[runs.status != "success"][["task", "status", "reason"]]
    assert failed.empty, failed.to_string()
    assert (runs.reward == 1.0).all() and (runs.tool_calls == 1).all() and (runs.model_calls == 0).all()
    assert 1 < max_overlap(runs) <= 4
    summary = json.loads((run_dir / "summary.json").read_text())
    (config,) = summary["configurations"]
    assert (config["architecture"], config["concurrency"], config["success"]) == ("LO", 4, len(suite))
    for name in ("summary.html", "results.csv", "graded_results.jsonl", "raw_responses.jsonl"):
        assert (run_dir / name).is_file(), name
    assert (tmp_path / "runs" / "latest" / "summary.json").is_file()
    meta = json.loads((run_dir / "run.json").read_text())
    assert meta["agent_kind"] == "oracle" and meta["task_order"] == [t.id for t in task_order(suite, 0)]


def test_every_configuration_runs_the_same_seeded_order(tmp_path: Path) -> None:
    opts = options(
        tmp_path, archs=[Architecture.LO, Architecture.CO], concurrency=[1], agent="null", limit=5, seed=7,
        write_reports=False,
    )  # fmt: skip
    chosen = [t.id for t in select_run_tasks(opts)]
    assert len(chosen) == 5
    assert [t.id for t in select_run_tasks(options(tmp_path, seed=8, limit=5))] != chosen
    run_dir = run_sweep(opts)
    runs = RunStore.open(run_dir).table("task_runs")
    for arch in ("LO", "CO"):
        rows = runs[runs.architecture == arch].sort_values("t_start")
        assert list(rows.task) == chosen
        assert set(rows.status) == {"verification_failed"}  # the null agent does nothing


def test_bad_input_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(AgbenchError, match="unknown task id"):
        run_sweep(options(tmp_path, task_ids=["no-such-task"], agent="null"))
    with pytest.raises(AgbenchError, match="unknown agent"):
        run_sweep(options(tmp_path, agent="wizard"))
    with pytest.raises(AgbenchError, match="not an agbench run directory|not found"):
        run_sweep(options(tmp_path, resume=tmp_path))
    with pytest.raises(AgbenchError, match="trajector"):
        run_sweep(options(tmp_path / "r", agent="replay", trajectories=tmp_path / "missing.jsonl"))
    run_sweep(options(tmp_path / "twice", agent="null", limit=1, write_reports=False))
    with pytest.raises(AgbenchError, match="already holds a run"):
        run_sweep(options(tmp_path / "twice", agent="null", limit=1, write_reports=False))


@pytest.mark.server
@pytest.mark.slow
def test_small_model_sweep_with_cloud_standin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGBENCH_CLOUD_API_KEY", FAKE_KEY)
    opts = options(
        tmp_path, archs=ALL, concurrency=[1, 2], limit=3, agent="model", time_limit=12, max_tokens=24, local_threads=1
    )
    run_dir = run_sweep(opts)
    store = RunStore.open(run_dir)
    tables = store.tables()
    runs = tables["task_runs"]
    # Every (configuration, task) pair has one attempt with a real status.
    assert len(runs) == 3 * 4 * 2
    assert runs.groupby(["architecture", "concurrency", "task"]).size().eq(1).all()
    assert set(runs.status) <= {"success", "verification_failed", "context_limit", "execution_error", "timeout"}
    # Time breakdown: the parts sum to the wall time (within 2%), none negative.
    parts = runs.local_model_s + runs.cloud_model_s + runs.tools_s + runs.other_s
    wall = runs.t_end - runs.t_start
    assert ((parts - wall).abs() <= 0.02 * wall).all()
    assert (runs[["local_model_s", "cloud_model_s", "tools_s", "other_s"]] >= 0).all().all()
    # Which endpoint each architecture waited on.
    by_arch = runs.groupby("architecture")[["local_model_s", "cloud_model_s"]].sum()
    assert by_arch.loc["LO", "cloud_model_s"] == 0 and by_arch.loc["LO", "local_model_s"] > 0
    assert by_arch.loc["CO", "local_model_s"] == 0 and by_arch.loc["CO", "cloud_model_s"] > 0
    # Model calls: measured, TTFT never after the end, attributed to the right endpoints.
    calls = tables["model_calls"]
    assert len(calls) > 0
    timed = calls.dropna(subset=["ttft_s"])
    assert len(timed) > 0 and (timed.ttft_s <= timed.total_s).all() and (timed.ttft_s >= 0).all()
    assert set(calls[calls.architecture == "LO"].endpoint) == {"local"}
    assert set(calls[calls.architecture == "CO"].endpoint) == {"cloud"}
    assert runs.model_calls.sum() == len(calls)
    # Delegations only in HCL, consultations only in HLL.
    messages = tables["messages"]
    assert set(messages[messages.kind == "delegate"].architecture) <= {"HCL"}
    assert set(messages[messages.kind == "consult"].architecture) <= {"HLL"}
    assert set(calls[calls.agent == "local-sub"].architecture) <= {"HCL"}
    # Monitors sampled the servers and the machine.
    assert len(tables["server_samples"]) > 0 and len(tables["resource_samples"]) > 0
    assert {"local", "cloud-standin"} <= set(tables["server_samples"].server)
    # The stand-in is declared everywhere a reader looks.
    meta = store.meta()
    assert meta["cloud_standin"] is True and "cloud stand-in" in meta["labels"]
    summary = json.loads((run_dir / "summary.json").read_text())
    assert "cloud stand-in" in json.dumps(summary)
    assert len(summary["configurations"]) == 8
    assert (run_dir / "raw_responses.jsonl").stat().st_size > 0
    # No API key in any file of the run directory.
    leaks = [p for p in run_dir.rglob("*") if p.is_file() and FAKE_KEY.encode() in p.read_bytes()]
    assert leaks == []


@pytest.mark.server
@pytest.mark.slow
def test_real_cloud_url_key_reaches_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A configured cloud (here another local llama-server) gets the key; no run file holds it."""
    from agbench.config import ServerSettings
    from agbench.live.serving import ManagedServer

    monkeypatch.setenv("AGBENCH_CLOUD_API_KEY", FAKE_KEY)
    with ManagedServer(ServerSettings(n_ctx=4096, threads=1), alias="fake-cloud") as cloud:
        opts = options(
            tmp_path, archs=[Architecture.CO], concurrency=[1], limit=1, agent="model", time_limit=8,
            max_tokens=16, local_threads=1, cloud_url=cloud.url + "/v1", cloud_model="fake-cloud",
        )  # fmt: skip
        run_dir = run_sweep(opts)
    meta = RunStore.open(run_dir).meta()
    assert meta["cloud_standin"] is False and meta["cloud"]["url"].startswith("http://127.0.0.1")
    calls = RunStore.open(run_dir).table("model_calls")
    assert set(calls.endpoint) == {"cloud"}
    leaks = [p for p in run_dir.rglob("*") if p.is_file() and FAKE_KEY.encode() in p.read_bytes()]
    assert leaks == []
