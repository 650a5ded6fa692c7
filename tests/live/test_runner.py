"""Live sweeps end to end: real bubblewrap sandboxes, the real task suite, real llama-server.

- the oracle agent at C = 4 gets every task of the suite right (and never more than 4 run at once);
- a small model-agent sweep (2 tasks × LO, CO, HCL, HLL × C = 1, 2) against the managed
  SmolLM2 server with a second one standing in for the cloud produces a complete run
  directory whose traces are consistent, and no API key reaches any of its files;
- scripted models (instant, deterministic) drive the model agent's tool path through the real
  proxy and sandboxes, with a configured cloud URL whose key reaches the upstream and no file;
- bad input is a one-line AgbenchError before anything runs.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from agbench.config import Architecture
from agbench.errors import AgbenchError
from agbench.live.runner import SweepOptions, run_sweep, select_run_tasks
from agbench.store import RunStore
from agbench.task import load_suite, select_tasks

pytestmark = [
    pytest.mark.bwrap,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed"),
]

ALL = [Architecture.LO, Architecture.CO, Architecture.HCL, Architecture.HLL]
FAKE_KEY = "sk-agbench-FAKE-0123456789abcdefTESTKEY"


def options(tmp_path: Path, **kw: Any) -> SweepOptions:
    base: dict[str, Any] = {"out": tmp_path / "run", "runs_root": tmp_path / "runs", "quiet": True}
    base.update(kw)
    return SweepOptions(**base)


def max_overlap(rows: pd.DataFrame) -> int:
    events = sorted(
        [(t, 1) for t in rows.t_start] + [(t, -1) for t in rows.t_end], key=lambda e: (e[0], e[1])
    )
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
    assert (runs.reward == 1.0).all()
    assert (runs.tool_calls == 1).all()
    assert (runs.model_calls == 0).all()
    assert 1 < max_overlap(runs) <= 4
    summary = json.loads((run_dir / "summary.json").read_text())
    (config,) = summary["configurations"]
    assert (config["architecture"], config["concurrency"], config["success"]) == ("LO", 4, len(suite))
    for name in ("summary.html", "results.csv", "graded_results.jsonl", "raw_responses.jsonl"):
        assert (run_dir / name).is_file(), name
    assert (tmp_path / "runs" / "latest" / "summary.json").is_file()
    meta = json.loads((run_dir / "run.json").read_text())
    assert meta["agent_kind"] == "oracle"
    assert meta["task_order"] == [t.id for t in select_tasks(suite, seed=0)]


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
    with pytest.raises(AgbenchError, match=r"not an agbench run directory|not found"):
        run_sweep(options(tmp_path, resume=tmp_path))
    with pytest.raises(AgbenchError, match="trajector"):
        run_sweep(options(tmp_path / "r", agent="replay", trajectories=tmp_path / "missing.jsonl"))
    assert not (tmp_path / "r").exists()  # refused before a run directory was made
    run_sweep(options(tmp_path / "twice", agent="null", limit=1, write_reports=False))
    with pytest.raises(AgbenchError, match="already holds a run"):
        run_sweep(options(tmp_path / "twice", agent="null", limit=1, write_reports=False))


@pytest.mark.server
@pytest.mark.slow
def test_small_model_sweep_with_cloud_standin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGBENCH_CLOUD_API_KEY", FAKE_KEY)
    opts = options(
        tmp_path,
        archs=ALL,
        concurrency=[1],  # at C = 2 one thread cannot prefill two first prompts in 8 s; the
        limit=2,  # replay sweeps run real calls at once (tests/live/test_replay.py)
        agent="model",
        time_limit=8,  # an attempt is cut at its limit; 8 s still makes several real calls
        max_tokens=24,
        local_threads=1,
    )
    run_dir = run_sweep(opts)
    store = RunStore.open(run_dir)
    tables = store.tables()
    runs = tables["task_runs"]
    # Every (configuration, task) pair has one attempt with a real status.
    assert len(runs) == 2 * 4
    assert runs.groupby(["architecture", "concurrency", "task"]).size().eq(1).all()
    assert set(runs.status) <= {
        "success",
        "verification_failed",
        "context_limit",
        "execution_error",
        "timeout",
    }
    # Time breakdown: the parts sum to the wall time (within 2%), none negative.
    parts = runs.local_model_s + runs.cloud_model_s + runs.tools_s + runs.other_s
    wall = runs.t_end - runs.t_start
    assert ((parts - wall).abs() <= 0.02 * wall).all()
    assert (runs[["local_model_s", "cloud_model_s", "tools_s", "other_s"]] >= 0).all().all()
    # Which endpoint each architecture waited on.
    waited = {
        (str(arch), kind): float(rows[f"{kind}_model_s"].sum())
        for arch, rows in runs.groupby("architecture")
        for kind in ("local", "cloud")
    }
    assert waited[("LO", "cloud")] == 0
    assert waited[("LO", "local")] > 0
    assert waited[("CO", "local")] == 0
    assert waited[("CO", "cloud")] > 0
    # Model calls: measured, TTFT never after the end, attributed to the right endpoints.
    calls = tables["model_calls"]
    assert len(calls) > 0
    timed = calls.dropna(subset=["ttft_s"])
    assert len(timed) > 0
    assert (timed.ttft_s <= timed.total_s).all()
    assert (timed.ttft_s >= 0).all()
    assert set(calls[calls.architecture == "LO"].endpoint) == {"local"}
    assert set(calls[calls.architecture == "CO"].endpoint) == {"cloud"}
    assert runs.model_calls.sum() == len(calls)
    # Delegations only in HCL, consultations only in HLL.
    messages = tables["messages"]
    assert set(messages[messages.kind == "delegate"].architecture) <= {"HCL"}
    assert set(messages[messages.kind == "consult"].architecture) <= {"HLL"}
    assert set(calls[calls.agent == "local-sub"].architecture) <= {"HCL"}
    # Monitors sampled the servers and the machine.
    assert len(tables["server_samples"]) > 0
    assert len(tables["resource_samples"]) > 0
    assert {"local", "cloud-standin"} <= set(tables["server_samples"].server)
    # The stand-in is declared everywhere a reader looks.
    meta = store.meta()
    assert meta["cloud_standin"] is True
    assert "cloud stand-in" in meta["labels"]
    summary = json.loads((run_dir / "summary.json").read_text())
    assert "cloud stand-in" in json.dumps(summary)
    assert len(summary["configurations"]) == 4
    assert (run_dir / "raw_responses.jsonl").stat().st_size > 0
    # No API key in any file of the run directory.
    leaks = [p for p in run_dir.rglob("*") if p.is_file() and FAKE_KEY.encode() in p.read_bytes()]
    assert leaks == []


class ScriptedModel:
    """An OpenAI-compatible server that answers at once: ``turns`` ``list_dir`` calls per
    conversation, then a final answer (a scripted model, so the tool path runs every time)."""

    def __init__(self, turns: int) -> None:
        import http.server
        import threading

        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                owner.auth.append(self.headers.get("Authorization"))
                done = sum(1 for m in body["messages"] if m.get("role") == "tool")
                if done < turns:
                    call = {"index": 0, "id": f"c{done}", "type": "function",
                            "function": {"name": "list_dir", "arguments": '{"path": "."}'}}  # fmt: skip
                    delta: dict[str, Any] = {"tool_calls": [call]}
                    finish = "tool_calls"
                else:
                    delta, finish = {"content": "FINAL ANSWER: 0"}, "stop"
                events = [
                    {"id": "s", "choices": [{"index": 0, "delta": delta}]},
                    {"id": "s", "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
                    {"id": "s", "choices": [], "usage": {"prompt_tokens": 50 + done, "completion_tokens": 5}},
                ]
                data = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data.encode())

        self.auth: list[str | None] = []
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_model_agent_tool_path_through_proxy_with_scripted_models(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """LO and CO at C = 2 over scripted local and cloud models: tool calls, proxy rows, breakdown,
    and the cloud API key (sent upstream by the proxy, written nowhere)."""
    monkeypatch.setenv("AGBENCH_CLOUD_API_KEY", FAKE_KEY)
    local, cloud = ScriptedModel(turns=2), ScriptedModel(turns=0)
    try:
        opts = options(
            tmp_path, archs=[Architecture.LO, Architecture.CO], concurrency=[2], limit=3, agent="model",
            local_url=local.url, cloud_url=cloud.url + "/v1", cloud_model="scripted-cloud", write_reports=False,
        )  # fmt: skip
        run_dir = run_sweep(opts)
    finally:
        local.close()
        cloud.close()
    tables = RunStore.open(run_dir).tables()
    runs, calls, tools = tables["task_runs"], tables["model_calls"], tables["tool_calls"]
    lo, co = runs[runs.architecture == "LO"], runs[runs.architecture == "CO"]
    assert (lo.model_calls == 3).all()
    assert (lo.tool_calls == 2).all()
    assert (lo.tools_s > 0).all()
    assert (co.model_calls == 1).all()
    assert (co.tool_calls == 0).all()
    assert (co.cloud_cost_usd > 0).all()
    assert set(runs.status) == {"verification_failed"}  # "0" is no task's answer
    assert set(tools.tool) == {"list_dir"}
    assert set(tools.agent) == {"local"}
    assert (tools.exit_code == 0).all()
    assert (calls.ttft_s <= calls.total_s).all()
    assert calls.error_class.eq("").all()
    assert set(zip(calls.architecture, calls.endpoint, strict=True)) == {("LO", "local"), ("CO", "cloud")}
    parts = runs.local_model_s + runs.cloud_model_s + runs.tools_s + runs.other_s
    assert ((parts - (runs.t_end - runs.t_start)).abs() <= 0.02 * (runs.t_end - runs.t_start)).all()
    # The key went to the cloud upstream only, and into no file.
    assert set(cloud.auth) == {f"Bearer {FAKE_KEY}"}
    assert set(local.auth) == {None}
    leaks = [p for p in run_dir.rglob("*") if p.is_file() and FAKE_KEY.encode() in p.read_bytes()]
    assert leaks == []
