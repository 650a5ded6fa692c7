"""``timeline.json`` as a typed, versioned model: what agbench.timeline builds and every reader
(the report's timeline SVG, the tests) reads.

The file is a Chrome Trace Event document (Google's "Trace Event Format"; Perfetto UI and
chrome://tracing open it), so the model follows that format's field names (``traceEvents``,
``displayTimeUnit``, ``otherData``; per event ``name``, ``cat``, ``ph``, ``ts``, ``dur``,
``pid``, ``tid``, ``args``) and declares only the three phases agbench writes: complete spans
(``"X"``), counters (``"C"``) and metadata (``"M"``), told apart by ``ph``. The version,
:data:`TIMELINE_SCHEMA_VERSION`, lives in ``otherData``, the format's own place for
metadata, so no viewer meets a top-level key it does not know.

A span's ``args`` are typed (:class:`SpanArgs`: every key one of agbench's spans carries, each
optional); absent values are left out of the file, as the untyped writer left them out, so
the JSON is the same document as before plus ``otherData.schema_version``. Bump the version
only when a field changes meaning or goes away; a new optional field is compatible.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, ValidationError

from agbench.errors import RunDirError
from agbench.results.summary import ResultModel

#: Version of the timeline.json layout (``otherData.schema_version``); files before it read as 0.
TIMELINE_SCHEMA_VERSION = 1

MetadataName = Literal["process_name", "thread_name", "process_sort_index", "thread_sort_index"]


class SpanArgs(ResultModel):
    """What a span shows when selected. Which keys a span has depends on its category: model
    calls (``model``) the call's ids and tokens, tool calls (``tool``) CPU and exit code,
    messages (``message.*``) their tokens, attempts (``task``) status and reward; a call's
    phases (``model.queue``, ``model.prefill``, ``model.decode``, ``model.error``) its endpoint."""

    call_id: str | None = None
    endpoint: str | None = None
    prompt_tokens: int | None = None
    cached_tokens: int | None = None
    completion_tokens: int | None = None
    slot: int | None = Field(default=None, description="the server slot that served the call")
    error_class: str | None = None
    retry: int | None = None
    cpu_s: float | None = None
    exit_code: int | None = None
    error: str | None = None
    ok: bool | None = None
    request_tokens: int | None = None
    response_tokens: int | None = None
    status: str | None = None
    reward: float | None = None
    category: str | None = None


class SpanEvent(ResultModel):
    """A complete event: something that took ``dur`` microseconds from ``ts`` on one track."""

    name: str
    cat: str
    ph: Literal["X"] = "X"
    ts: float = Field(ge=0, description="microseconds from the run's first event")
    dur: float = Field(ge=0, description="microseconds")
    pid: int = Field(description="the configuration (device, architecture, concurrency)")
    tid: int = Field(description="the track: one agent of one attempt")
    args: SpanArgs = Field(default_factory=SpanArgs)


class CounterEvent(ResultModel):
    """A sample of one configuration's counters (KV cells, busy slots, CPU and GPU %)."""

    name: str
    cat: str = "counter"
    ph: Literal["C"] = "C"
    ts: float = Field(ge=0, description="microseconds from the run's first event")
    pid: int
    args: dict[str, int | float] = Field(description="series name -> value")


class MetadataArgs(ResultModel):
    """``name`` for the ``*_name`` events, ``sort_index`` for the ``*_sort_index`` ones."""

    name: str | None = None
    sort_index: int | None = None


class MetadataEvent(ResultModel):
    """Names and orders a process (configuration) or a thread (track)."""

    name: MetadataName
    ph: Literal["M"] = "M"
    pid: int
    args: MetadataArgs
    tid: int | None = Field(default=None, description="thread_name / thread_sort_index only")


TraceEvent = Annotated[SpanEvent | CounterEvent | MetadataEvent, Field(discriminator="ph")]


class TimelineInfo(ResultModel):
    """``otherData``: who wrote the file, the run's label and the instant ``ts`` counts from."""

    generator: str = "agbench"
    label: str = ""
    t0: float = Field(default=0.0, description="the run's first instant (epoch s live, s simulated)")
    schema_version: int = TIMELINE_SCHEMA_VERSION


class Timeline(ResultModel):
    """A run's ``timeline.json``."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, serialize_by_alias=True)

    # The file has the format's camelCase keys; Python code passes the snake_case field names
    # (a plain ``alias`` would make the constructor take the camelCase ones).
    trace_events: list[TraceEvent] = Field(
        default_factory=list, validation_alias="traceEvents", serialization_alias="traceEvents"
    )
    display_time_unit: Literal["ms", "ns"] = Field(
        default="ms", validation_alias="displayTimeUnit", serialization_alias="displayTimeUnit"
    )
    other_data: TimelineInfo = Field(
        default_factory=TimelineInfo,
        validation_alias="otherData",
        serialization_alias="otherData",
    )

    def to_json_dict(self) -> dict[str, Any]:
        """The JSON document; values a span or a metadata event does not have are left out."""
        return self.model_dump(mode="json", exclude_none=True)

    def spans(self, pid: int | None = None) -> list[SpanEvent]:
        """The complete events (of one configuration when ``pid`` is given)."""
        return [e for e in self.trace_events if isinstance(e, SpanEvent) and pid in (None, e.pid)]

    def counters(self) -> list[CounterEvent]:
        return [e for e in self.trace_events if isinstance(e, CounterEvent)]

    def metadata(self, name: MetadataName, pid: int | None = None) -> list[MetadataEvent]:
        """The metadata events called ``name`` (of one configuration when ``pid`` is given)."""
        return [
            e
            for e in self.trace_events
            if isinstance(e, MetadataEvent) and e.name == name and pid in (None, e.pid)
        ]

    def process_names(self) -> dict[int, str]:
        """pid -> the configuration's name."""
        return {e.pid: e.args.name or "" for e in self.metadata("process_name")}

    def thread_names(self, pid: int | None = None) -> dict[tuple[int, int], str]:
        """(pid, tid) -> the track's name, ``"<task>#<attempt> <agent>"``."""
        return {(e.pid, e.tid or 0): e.args.name or "" for e in self.metadata("thread_name", pid)}


def read_timeline(path: Path) -> Timeline:
    """Read a timeline.json file (one-line RunDirError when missing or malformed)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise RunDirError(f"cannot read {path}: {exc}") from None
    try:
        return Timeline.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(part) for part in error["loc"])
        raise RunDirError(f"{path}: {key}: {error['msg']}") from None


__all__ = [
    "TIMELINE_SCHEMA_VERSION",
    "CounterEvent",
    "MetadataArgs",
    "MetadataEvent",
    "SpanArgs",
    "SpanEvent",
    "Timeline",
    "TimelineInfo",
    "TraceEvent",
    "read_timeline",
]
