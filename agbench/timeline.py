"""``timeline.json``: a run's trace tables as a Chrome Trace Event file (Perfetto, chrome://tracing).

Why a core module: live, simulated and load runs write the same trace tables, so one function
turns any of them into one timeline and a live run and its simulated replay show the same
tracks. The layout:

* one *process* (``pid``) per configuration (device, architecture, concurrency), named
  ``"<device> <arch> C=<n>"``;
* one *thread* (``tid``) per agent of each attempt, named ``"<task>#<attempt> <agent>"``
  (agents are :class:`~agbench.attempt.AgentLabel` values); the attempt's lead agent (local for
  LO and HLL, cloud for CO and HCL; the single agent of a load level) carries the whole
  attempt as a ``task`` span;
* model calls as ``"X"`` (complete) spans with ``queue`` (the harness's limiter, then the
  server's own wait before prompt processing where ``prompt_ms`` says how long that took),
  ``prefill`` (up to the first token) and ``decode`` (to the last) children, from
  ``queue_s``, ``ttft_s``, ``prompt_ms`` and ``total_s``; a failed call is one ``error`` span;
* tool calls, delegations and consultations as spans on the agent that made them (and the
  message also on its receiver's track);
* ``"C"`` (counter) events per configuration: KV cells in use and busy slots of each server
  (``server_samples``), machine CPU and GPU utilisation (``resource_samples``, live runs).

Timestamps are microseconds from the run's first event (live runs record epoch seconds,
simulated runs seconds from 0). The format's fields (``name``, ``cat``, ``ph``, ``ts``, ``dur``,
``pid``, ``tid``, ``args``; ``"M"`` metadata events ``process_name`` / ``thread_name`` /
``*_sort_index``) are those of Google's "Trace Event Format" document; the document is built
as the typed model agbench.results.timeline.Timeline (published as docs/timeline.schema.json).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from agbench.architecture_roles import plan_for
from agbench.attempt import AgentLabel, MessageKind
from agbench.config import Architecture
from agbench.records import TABLES, to_row
from agbench.results.timeline import (
    CounterEvent,
    MetadataArgs,
    MetadataEvent,
    MetadataName,
    SpanArgs,
    SpanEvent,
    Timeline,
    TimelineInfo,
    TraceEvent,
)
from agbench.store import RunStore

TIMELINE_FILE = "timeline.json"
US = 1e6  # trace timestamps are microseconds

#: The trace tables a timeline is drawn from.
TIMELINE_TABLES = ("task_runs", "model_calls", "tool_calls", "messages", "server_samples", "resource_samples")

_ARCHITECTURES = frozenset(a.value for a in Architecture)
_AGENT_ORDER = {label.value: i for i, label in enumerate(AgentLabel)}


@dataclass(frozen=True, order=True)
class Track:
    """One thread of the timeline: an agent of one attempt under one configuration."""

    device: str
    architecture: str
    concurrency: int
    task: str
    attempt: int
    agent: str

    @property
    def process_name(self) -> str:
        return config_name(self.device, self.architecture, self.concurrency)

    @property
    def thread_name(self) -> str:
        return f"{self.task}#{self.attempt} {self.agent}"


def config_name(device: str, architecture: str, concurrency: int) -> str:
    return f"{device} {architecture} C={concurrency}"


def lead_agent(architecture: str, agents_seen: Iterable[str] = ()) -> str:
    """The agent that leads an attempt, from the core's role table (cloud for CO/HCL, local
    for LO/HLL); a name outside the table leads with the first agent seen (a load level's one
    agent, whatever it is called), else local."""
    seen = list(agents_seen)
    if architecture in _ARCHITECTURES:
        return plan_for(architecture).lead.agent.value
    if not seen:
        return AgentLabel.LOCAL.value
    return seen[0]


def frames_from_records(records: Iterable[Any]) -> dict[str, pd.DataFrame]:
    """Trace records (as the simulator returns them) as the per-table frames a run store reads."""
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in TABLES}
    for rec in records:
        rows[rec.TABLE].append(to_row(rec))
    return {name: pd.DataFrame(r) for name, r in rows.items()}


def _num(value: Any) -> float | None:
    """A finite float, or None for missing values (NaN, None)."""
    if value is None:
        return None
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None


def _rows(frame: pd.DataFrame | None) -> Iterator[dict[str, Any]]:
    if frame is None or not len(frame):
        return iter(())
    rows: list[dict[str, Any]] = frame.to_dict("records")  # type: ignore[assignment]
    return iter(rows)


def _span(name: str, cat: str, start: float, end: float, pid: int, tid: int, **args: Any) -> SpanEvent:
    return SpanEvent(
        name=name,
        cat=cat,
        ts=round(start * US, 3),
        dur=round(max(0.0, end - start) * US, 3),
        pid=pid,
        tid=tid,
        args=SpanArgs(**{k: v for k, v in args.items() if v is not None and v != ""}),
    )


def _meta(name: MetadataName, pid: int, tid: int | None, value: str | int) -> MetadataEvent:
    """A metadata event: ``process_name``/``thread_name`` carry ``args.name``, the
    ``*_sort_index`` ones ``args.sort_index``."""
    if name.endswith("sort_index"):
        args = MetadataArgs(sort_index=int(value))
    else:
        args = MetadataArgs(name=str(value))
    return MetadataEvent(name=name, pid=pid, args=args, tid=tid)


def _t0(tables: Mapping[str, pd.DataFrame]) -> float:
    """The run's first instant: every timestamp is relative to it."""
    starts: list[float] = []
    for name, col in (("task_runs", "t_start"), ("tool_calls", "t_start"), ("messages", "t_start")):
        frame = tables.get(name)
        if frame is not None and len(frame):
            starts.append(float(frame[col].min()))
    calls = tables.get("model_calls")
    if calls is not None and len(calls):
        queue = calls["queue_s"].fillna(0.0) if "queue_s" in calls else 0.0
        starts.append(float((calls["t_start"] - queue).min()))
    for name in ("server_samples", "resource_samples"):
        frame = tables.get(name)
        if frame is not None and len(frame):
            starts.append(float(frame["t"].min()))
    return min(starts) if starts else 0.0


def _model_call_events(row: dict[str, Any], t0: float, pid: int, tid: int) -> list[SpanEvent]:
    start = float(row["t_start"]) - t0
    queue = _num(row.get("queue_s")) or 0.0
    total = _num(row.get("total_s")) or 0.0
    ttft = _num(row.get("ttft_s"))
    prompt_ms = _num(row.get("prompt_ms"))
    endpoint = str(row.get("endpoint", ""))
    error = str(row.get("error_class") or "")
    args = {
        "call_id": row.get("call_id"),
        "endpoint": endpoint,
        "prompt_tokens": int(row.get("prompt_tokens") or 0),
        "cached_tokens": int(row.get("cached_tokens") or 0),
        "completion_tokens": int(row.get("completion_tokens") or 0),
        "slot": None if _num(row.get("slot_id")) is None else int(row["slot_id"]),
        "error_class": error,
        "retry": int(row.get("retry") or 0),
    }
    events = [_span(f"model {endpoint}", "model", start - queue, start + total, pid, tid, **args)]
    if error or ttft is None:
        events.append(
            _span(
                f"error {error or 'no first token'}",
                "model.error",
                start,
                start + total,
                pid,
                tid,
                endpoint=endpoint,
            )
        )
        if queue > 0:
            events.append(_span("queue", "model.queue", start - queue, start, pid, tid, endpoint=endpoint))
        return events
    ttft = min(ttft, total) if total > 0 else ttft
    server_wait = max(0.0, ttft - prompt_ms / 1000) if prompt_ms is not None else 0.0
    if queue + server_wait > 0:
        events.append(
            _span("queue", "model.queue", start - queue, start + server_wait, pid, tid, endpoint=endpoint)
        )
    events.append(
        _span("prefill", "model.prefill", start + server_wait, start + ttft, pid, tid, endpoint=endpoint)
    )
    if total > ttft:
        events.append(
            _span("decode", "model.decode", start + ttft, start + total, pid, tid, endpoint=endpoint)
        )
    return events


def _counter(name: str, t: float, pid: int, **series: int | float) -> CounterEvent:
    return CounterEvent(name=name, ts=round(t * US, 3), pid=pid, args=series)


def _row_events(kind: str, row: dict[str, Any], t0: float, pid: int, tid: int) -> list[SpanEvent]:
    """The trace events of one attempt-level row on its track."""
    if kind == "model":
        return _model_call_events(row, t0, pid, tid)
    if kind == "tool":
        start = float(row["t_start"]) - t0
        return [
            _span(
                f"tool {row['tool']}",
                "tool",
                start,
                start + float(row.get("wall_s") or 0.0),
                pid,
                tid,
                call_id=row.get("call_id"),
                cpu_s=_num(row.get("cpu_s")),
                exit_code=int(row.get("exit_code") or 0),
                error=row.get("error") or "",
            )
        ]
    if kind in ("message-out", "message-in"):
        verb = "delegate" if str(row["kind"]) == MessageKind.DELEGATE else str(row["kind"])
        name = f"{verb} → {row['receiver']}" if kind == "message-out" else f"{verb}d by {row['sender']}"
        return [
            _span(
                name,
                f"message.{row['kind']}",
                float(row["t_start"]) - t0,
                float(row["t_end"]) - t0,
                pid,
                tid,
                ok=bool(row.get("ok", True)),
                request_tokens=int(row.get("request_tokens") or 0),
                response_tokens=int(row.get("response_tokens") or 0),
            )
        ]
    return [
        _span(
            f"task {row['task']}",
            "task",
            float(row["t_start"]) - t0,
            float(row["t_end"]) - t0,
            pid,
            tid,
            status=str(row["status"]),
            reward=_num(row.get("reward")),
            category=str(row.get("category") or ""),
        )
    ]


def _sample_events(table: str, row: dict[str, Any], t0: float, pid: int) -> list[CounterEvent]:
    """The counter events of one server or resource sample."""
    t = float(row["t"]) - t0
    if table == "server_samples":
        server = str(row["server"])
        return [
            _counter(f"KV used [{server}]", t, pid, tokens=int(row["kv_used"])),
            _counter(f"busy slots [{server}]", t, pid, slots=int(row["slots_busy"])),
        ]
    events = [_counter("CPU %", t, pid, percent=_num(row.get("cpu_percent")) or 0.0)]
    gpu = _num(row.get("gpu_util_percent"))
    if gpu is not None:
        events.append(_counter("GPU %", t, pid, percent=gpu))
    return events


def chrome_trace(tables: Mapping[str, pd.DataFrame], *, label: str = "") -> Timeline:
    """The run's tables as a Chrome Trace Event document (``{"traceEvents": [...]}``)."""
    t0 = _t0(tables)
    configs: dict[tuple[str, str, int], int] = {}
    tracks: dict[Track, tuple[float, int]] = {}  # track -> (first start, pid)
    agents_of: dict[tuple[str, str, int, str, int], list[str]] = {}

    def config_pid(row: dict[str, Any]) -> int:
        key = (str(row["device"]), str(row["architecture"]), int(row["concurrency"]))
        return configs.setdefault(key, len(configs) + 1)

    def track(row: dict[str, Any], agent: str, start: float) -> Track:
        tr = Track(
            str(row["device"]),
            str(row["architecture"]),
            int(row["concurrency"]),
            str(row["task"]),
            int(row["attempt"]),
            agent,
        )
        first, pid = tracks.get(tr, (start, config_pid(row)))
        tracks[tr] = (min(first, start), pid)
        seen = agents_of.setdefault((tr.device, tr.architecture, tr.concurrency, tr.task, tr.attempt), [])
        if agent not in seen:
            seen.append(agent)
        return tr

    pending: list[tuple[Track, Any]] = []  # (track, builder) resolved once tids are known
    for row in _rows(tables.get("model_calls")):
        tr = track(row, str(row["agent"]), float(row["t_start"]) - (_num(row.get("queue_s")) or 0.0))
        pending.append((tr, ("model", row)))
    for row in _rows(tables.get("tool_calls")):
        tr = track(row, str(row["agent"]), float(row["t_start"]))
        pending.append((tr, ("tool", row)))
    for row in _rows(tables.get("messages")):
        sender = track(row, str(row["sender"]), float(row["t_start"]))
        receiver = track(row, str(row["receiver"]), float(row["t_start"]))
        pending.append((sender, ("message-out", row)))
        pending.append((receiver, ("message-in", row)))
    for row in _rows(tables.get("task_runs")):
        seen = agents_of.get(
            (
                str(row["device"]),
                str(row["architecture"]),
                int(row["concurrency"]),
                str(row["task"]),
                int(row["attempt"]),
            ),
            [],
        )
        tr = track(row, lead_agent(str(row["architecture"]), seen), float(row["t_start"]))
        pending.append((tr, ("task", row)))

    samples = {name: list(_rows(tables.get(name))) for name in ("server_samples", "resource_samples")}
    for rows in samples.values():
        for row in rows:
            config_pid(row)

    # Threads in order of first activity within each configuration; sort indices keep it so.
    tids: dict[Track, int] = {}
    events: list[TraceEvent] = []
    for (device, arch, conc), pid in sorted(configs.items(), key=lambda kv: kv[1]):
        events.append(_meta("process_name", pid, None, config_name(device, arch, conc)))
        events.append(_meta("process_sort_index", pid, None, pid))
    ordered = sorted(
        tracks.items(),
        key=lambda kv: (kv[1][1], kv[1][0], kv[0].task, kv[0].attempt, _AGENT_ORDER.get(kv[0].agent, 99)),
    )
    for n, (tr, (_, pid)) in enumerate(ordered, start=1):
        tids[tr] = n
        events.append(_meta("thread_name", pid, n, tr.thread_name))
        events.append(_meta("thread_sort_index", pid, n, n))

    for tr, (kind, row) in pending:
        events += _row_events(kind, row, t0, tracks[tr][1], tids[tr])

    for name, rows in samples.items():
        for row in rows:
            events += _sample_events(name, row, t0, config_pid(row))
    return Timeline(trace_events=events, display_time_unit="ms", other_data=TimelineInfo(label=label, t0=t0))


def track_names(trace: Timeline) -> set[tuple[str, str]]:
    """(process name, thread name) of every track: what a live run and its replay must share."""
    procs = trace.process_names()
    return {(procs[pid], name) for (pid, _), name in trace.thread_names().items()}


def read_timeline_tables(run_dir: Path) -> dict[str, pd.DataFrame]:
    """The trace tables a timeline needs, read from a run directory (compacting it if needed)."""

    store = RunStore.open(run_dir)
    return {name: store.table(name) for name in TIMELINE_TABLES}


def save_timeline(trace: Timeline, run_dir: Path) -> Path:
    """Write a built trace as ``RUN_DIR/timeline.json`` (atomically)."""
    path = run_dir / TIMELINE_FILE
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(trace.to_json_dict(), separators=(",", ":"), allow_nan=False), encoding="utf-8")
    tmp.replace(path)
    return path


def write_timeline(run_dir: Path) -> Path:
    """Build ``RUN_DIR/timeline.json`` from the run directory's trace tables."""
    return save_timeline(chrome_trace(read_timeline_tables(run_dir), label=run_dir.name), run_dir)


__all__ = [
    "TIMELINE_FILE",
    "TIMELINE_TABLES",
    "Track",
    "chrome_trace",
    "config_name",
    "frames_from_records",
    "lead_agent",
    "read_timeline_tables",
    "save_timeline",
    "track_names",
    "write_timeline",
]
