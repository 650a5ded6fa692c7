"""timeline.json: Chrome Trace Event output of the trace tables, the same for live and simulated runs.

The format checks read the JSON document itself (what Perfetto reads); everything else reads
the typed model, agbench.results.timeline.Timeline, as the report does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from agbench.attempt import AgentLabel, AttemptKey, Endpoint, MessageKind
from agbench.records import Message, ModelCall, ResourceSample, ServerSample, TaskRun, ToolCall
from agbench.results.timeline import read_timeline
from agbench.timeline import TIMELINE_FILE, chrome_trace, frames_from_records, track_names, write_timeline

# The Trace Event Format's fields (Google's "Trace Event Format" document): every event has a
# name, a phase and a process; duration/complete events a thread, a timestamp and a duration
# in microseconds; counter events a timestamp and numeric args; metadata events args.name or
# args.sort_index.
PHASES = {"X", "C", "M"}


def check_trace_format(trace: dict[str, Any]) -> None:
    assert set(trace) >= {"traceEvents"}
    assert trace.get("displayTimeUnit", "ms") in ("ms", "ns")
    json.dumps(trace, allow_nan=False)  # valid JSON, no NaN
    named_pids = {e["pid"] for e in trace["traceEvents"] if e["ph"] == "M" and e["name"] == "process_name"}
    named_tids = {
        (e["pid"], e["tid"]) for e in trace["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name"
    }
    for e in trace["traceEvents"]:
        assert e["ph"] in PHASES, e
        assert isinstance(e["name"], str)
        assert e["name"]
        assert isinstance(e["pid"], int)
        if e["ph"] == "X":
            assert isinstance(e["tid"], int)
            assert (e["pid"], e["tid"]) in named_tids
            assert isinstance(e["ts"], int | float)
            assert e["ts"] >= 0
            assert isinstance(e["dur"], int | float)
            assert e["dur"] >= 0
            assert isinstance(e["cat"], str)
            assert isinstance(e.get("args", {}), dict)
        elif e["ph"] == "C":
            assert e["pid"] in named_pids
            assert isinstance(e["ts"], int | float)
            assert e["args"]
            assert all(isinstance(v, int | float) for v in e["args"].values())
        else:
            assert e["name"] in ("process_name", "thread_name", "process_sort_index", "thread_sort_index")
            assert set(e["args"]) in ({"name"}, {"sort_index"})


def replay_records(t0: float, device: str = "dev", *, live: bool) -> list[Any]:
    """One HCL attempt as a live run (epoch times, resource samples) or its simulated replay
    (times from 0) records it: the cloud agent delegates to the local sub-agent, which calls
    the local model and a tool."""
    key = AttemptKey.of("r", device, "HCL", 2, "t1", 1)
    ids = key.ids()
    scope = key.scope.ids()
    recs: list[Any] = [
        ModelCall(
            **ids,
            agent=AgentLabel.CLOUD,
            endpoint=Endpoint.CLOUD,
            call_id="c0",
            t_start=t0 + 1.0,
            queue_s=0.0,
            ttft_s=0.8,
            total_s=2.0,
            prompt_tokens=900,
            completion_tokens=40,
        ),
        Message(
            **ids,
            kind=MessageKind.DELEGATE,
            sender=AgentLabel.CLOUD,
            receiver=AgentLabel.LOCAL_SUB,
            t_start=t0 + 3.1,
            t_end=t0 + 9.0,
            request_tokens=50,
            response_tokens=20,
        ),
        ModelCall(
            **ids,
            agent=AgentLabel.LOCAL_SUB,
            endpoint=Endpoint.LOCAL,
            call_id="l0",
            t_start=t0 + 3.3,
            queue_s=0.2,
            ttft_s=1.5,
            total_s=3.0,
            prompt_ms=1000.0,
            prompt_tokens=1200,
            completion_tokens=60,
            slot_id=1,
        ),
        ModelCall(
            **ids,
            agent=AgentLabel.LOCAL_SUB,
            endpoint=Endpoint.LOCAL,
            call_id="l1",
            t_start=t0 + 6.5,
            total_s=0.4,
            error_class="context_limit",
            status_code=400,
        ),
        ToolCall(
            **ids,
            agent=AgentLabel.LOCAL_SUB,
            call_id="k0",
            tool="bash",
            t_start=t0 + 7.0,
            wall_s=1.2,
            cpu_s=0.9,
        ),
        TaskRun(**ids, agent_kind="replay", category="c", t_start=t0, t_end=t0 + 10.0, status="success"),
        ServerSample(
            **scope, server="local", t=t0 + 4.0, slots_busy=1, slots_total=2, kv_used=1300, kv_total=8192
        ),
    ]
    if live:
        recs.append(ResourceSample(**scope, t=t0 + 4.0, cpu_percent=55.0, gpu_util_percent=None))
    return recs


def test_trace_follows_the_event_format_and_draws_every_kind() -> None:
    trace = chrome_trace(frames_from_records(replay_records(0.0, live=True)))
    check_trace_format(trace.to_json_dict())
    names = {e.name for e in trace.trace_events}
    assert {
        "model cloud",
        "model local",
        "queue",
        "prefill",
        "decode",
        "error context_limit",
        "tool bash",
    } <= names
    assert {"delegate → local-sub", "delegated by cloud", "task t1"} <= names
    assert {"KV used [local]", "busy slots [local]", "CPU %"} <= names
    assert track_names(trace) == {("dev HCL C=2", "t1#1 cloud"), ("dev HCL C=2", "t1#1 local-sub")}
    # The local call's spans: queue = limiter 0.2 s + server wait (1.5 - 1.0) s, then prefill 1 s, decode 1.5 s.
    spans = {e.name: e for e in trace.spans() if e.cat.startswith("model.")}
    assert spans["queue"].ts == pytest.approx(3.1e6)
    assert spans["queue"].dur == pytest.approx(0.7e6)
    assert spans["prefill"].ts == pytest.approx(3.8e6)
    assert spans["prefill"].dur == pytest.approx(1.0e6)
    assert spans["decode"].ts == pytest.approx(4.8e6)
    assert spans["decode"].dur == pytest.approx(1.5e6)
    task = next(e for e in trace.spans() if e.name == "task t1")
    cloud_tid = next(tid for (_, tid), name in trace.thread_names().items() if name == "t1#1 cloud")
    assert task.tid == cloud_tid
    assert task.args.status == "success"


def test_live_and_simulated_replays_carry_the_same_tracks() -> None:
    live = chrome_trace(frames_from_records(replay_records(1.7e9, live=True)))
    sim = chrome_trace(frames_from_records(replay_records(0.0, live=False)))
    check_trace_format(live.to_json_dict())
    check_trace_format(sim.to_json_dict())
    assert track_names(live) == track_names(sim)
    # Times are relative to the run's first event, so the two line up.
    assert [e.ts for e in live.spans()] == pytest.approx([e.ts for e in sim.spans()])


def test_missing_values_from_parquet_do_not_leak_nan() -> None:
    frames = frames_from_records(replay_records(0.0, live=False))
    calls = frames["model_calls"]
    calls["ttft_s"] = calls["ttft_s"].astype("float64")  # None -> NaN, as Parquet reads it
    calls["slot_id"] = calls["slot_id"].astype("float64")
    check_trace_format(chrome_trace(frames).to_json_dict())


def test_empty_tables_give_an_empty_trace() -> None:
    trace = chrome_trace({"task_runs": pd.DataFrame()})
    assert trace.trace_events == []


@pytest.mark.slow
def test_simulated_run_directory_gets_timeline_json(tmp_path: Path) -> None:
    from agbench.sim import run_matrix

    run_dir = run_matrix("this-machine-smollm2", concurrency=[2], seed=0, out_dir=tmp_path / "run", limit=3)
    path = run_dir / TIMELINE_FILE
    assert path.is_file()
    check_trace_format(json.loads(path.read_text()))
    trace = read_timeline(path)
    tracks = track_names(trace)
    assert {proc.split(" ", 1)[1] for proc, _ in tracks} >= {"LO C=2", "HCL C=2"}
    assert any(e.name.startswith("KV used") for e in trace.counters())
    assert write_timeline(run_dir) == path  # rewriting reads the run directory's tables
    assert "<svg" in (run_dir / "summary.html").read_text()
    assert "Timeline" in (run_dir / "summary.html").read_text()


def test_simulated_load_run_directory_gets_timeline_json(tmp_path: Path) -> None:
    from agbench.load import TokenDistribution, rate_level
    from agbench.sim.open_loop import run_load_sim

    level = rate_level(2.0, 6, TokenDistribution.parse(64), TokenDistribution.parse(8), poisson=True, seed=0)
    run_dir = run_load_sim("this-machine-smollm2", [level], tmp_path / "load")
    check_trace_format(json.loads((run_dir / TIMELINE_FILE).read_text()))
    trace = read_timeline(run_dir / TIMELINE_FILE)
    assert {thread for _, thread in track_names(trace)} == {f"{level.task}#1 local"}
    assert sum(1 for e in trace.spans() if e.name == "model local") == 6
