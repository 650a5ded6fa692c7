"""The trace schema: one typed record per table row.

This module is the contract between the live harness, the simulator and calibration: both
halves write these records and every metric and report reads them back. Times are seconds;
``t_*`` fields are absolute (epoch seconds for live runs, simulated seconds from 0 for
simulated runs). Every row carries its configuration and attempt so tables join without a
lookup table. Fields with a closed vocabulary are typed with its enum (``Architecture``,
``Status``, ``AgentLabel``, ``Endpoint``, ``MessageKind``, ``ErrorClass``); on disk they are
Arrow strings (dictionary-encoded in Parquet), and :func:`from_row` turns them back into members.

Changing a field is a schema change: bump ``SCHEMA_VERSION`` so older readers refuse newer
journals instead of misreading them.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

import pyarrow as pa

from agbench.config import Architecture
from agbench.status import Status
from agbench.vocabulary import AgentLabel, Endpoint, ErrorClass, MessageKind

SCHEMA_VERSION = 1


@dataclass
class TaskRun:
    """One task attempt under one configuration: its outcome and where its time went."""

    TABLE: ClassVar[str] = "task_runs"
    run_id: str
    device: str
    architecture: Architecture
    concurrency: int
    agent_kind: str
    task: str
    category: str
    attempt: int
    t_start: float
    t_end: float
    status: Status
    reward: float = 0.0
    reason: str = ""
    difficulty: str = ""
    local_model_s: float = 0.0  # waiting on the local model
    cloud_model_s: float = 0.0  # waiting on the cloud model
    tools_s: float = 0.0
    other_s: float = 0.0  # harness, sandbox setup, verification
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    cloud_prompt_tokens: int = 0
    cloud_cached_tokens: int = 0
    cloud_completion_tokens: int = 0
    cloud_cost_usd: float = 0.0
    cloud_calls: int = 0
    model_calls: int = 0
    tool_calls: int = 0
    sensitive_total: int = 0
    sensitive_exposed: int = 0
    local_context_errors: int = 0  # counted even when a hybrid's cloud agent papers over them
    full_capability: bool = True  # every tool the task needs was exposed
    answer: str = ""

    @property
    def wall_s(self) -> float:
        return self.t_end - self.t_start


@dataclass
class ModelCall:
    """One request to a model endpoint (each retry is its own row)."""

    TABLE: ClassVar[str] = "model_calls"
    run_id: str
    device: str
    architecture: Architecture
    concurrency: int
    task: str
    attempt: int
    agent: AgentLabel
    endpoint: Endpoint
    call_id: str
    t_start: float
    queue_s: float = 0.0  # waiting for the harness's own limiter, before the request was sent
    ttft_s: float | None = None
    total_s: float = 0.0
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    output_tok_s: float | None = None
    prompt_ms: float | None = None  # server-reported prompt processing time (llama.cpp timings)
    predicted_ms: float | None = None  # server-reported generation time
    finish_reason: str = ""
    error_class: ErrorClass = ErrorClass.NONE
    status_code: int = 0
    retry: int = 0
    request_id: str = ""
    response_id: str = ""
    cost_usd: float = 0.0
    slot_id: int | None = None


@dataclass
class ToolCall:
    TABLE: ClassVar[str] = "tool_calls"
    run_id: str
    device: str
    architecture: Architecture
    concurrency: int
    task: str
    attempt: int
    agent: AgentLabel
    call_id: str
    tool: str
    t_start: float
    wall_s: float = 0.0
    cpu_s: float = 0.0
    exit_code: int = 0
    args_bytes: int = 0
    bytes_in: int = 0  # read from the environment
    bytes_out: int = 0  # returned to the agent
    error: str = ""


@dataclass
class Message:
    """An inter-agent delegation (HCL) or consultation (HLL)."""

    TABLE: ClassVar[str] = "messages"
    run_id: str
    device: str
    architecture: Architecture
    concurrency: int
    task: str
    attempt: int
    kind: MessageKind
    sender: str
    receiver: str
    t_start: float
    t_end: float
    request_bytes: int = 0
    response_bytes: int = 0
    request_tokens: int = 0
    response_tokens: int = 0
    ok: bool = True


@dataclass
class ServerSample:
    """Local server state at one instant (llama.cpp /metrics and /slots, vLLM /metrics)."""

    TABLE: ClassVar[str] = "server_samples"
    run_id: str
    device: str
    architecture: Architecture
    concurrency: int
    server: str  # "local" | "cloud-standin"
    t: float
    slots_busy: int = 0
    slots_total: int = 0
    kv_used: int = 0  # cells (tokens)
    kv_total: int = 0
    requests_processing: int = 0
    requests_waiting: int = 0
    prompt_tokens_total: int = 0
    prompt_tokens_cached_total: int = 0
    generated_tokens_total: int = 0
    # A managed CPU server of two or more threads: of its computing time since the previous
    # sample, the share in which its two compute threads last ran on one core
    # (live/monitors/thread_placement.py: a server whose threads the kernel stacks nearly
    # stops). None: not sampled (not managed, one thread, not Linux) or idle.
    threads_stacked: float | None = None


@dataclass
class ResourceSample:
    TABLE: ClassVar[str] = "resource_samples"
    run_id: str
    device: str
    architecture: Architecture
    concurrency: int
    t: float
    cpu_percent: float = 0.0  # of the whole machine, 0-100
    mem_used_bytes: int = 0
    mem_total_bytes: int = 0
    disk_read_bytes: int = 0  # cumulative counters
    disk_write_bytes: int = 0
    net_sent_bytes: int = 0
    net_recv_bytes: int = 0
    gpu_util_percent: float | None = None
    gpu_mem_used_bytes: int | None = None
    # Power and energy where the machine reports them (NVML, RAPL); None = no source.
    gpu_power_w: float | None = None  # board power summed over GPUs
    gpu_temp_c: float | None = None  # hottest GPU
    gpu_energy_j: float | None = None  # NVML's cumulative energy counter, summed over GPUs
    cpu_energy_j: float | None = None  # RAPL package energy, cumulative from the sampler's start


@dataclass
class Exposure:
    """A sensitive item seen in a cloud-bound payload."""

    TABLE: ClassVar[str] = "exposures"
    run_id: str
    device: str
    architecture: Architecture
    concurrency: int
    task: str
    attempt: int
    item: str
    t_first: float
    where: str  # "instruction" | "tool_output" | "message" | "file" | "request"


RECORD_TYPES: tuple[type[Any], ...] = (
    TaskRun,
    ModelCall,
    ToolCall,
    Message,
    ServerSample,
    ResourceSample,
    Exposure,
)
TABLES: dict[str, type[Any]] = {cls.TABLE: cls for cls in RECORD_TYPES}

_ARROW_TYPES: dict[Any, pa.DataType] = {
    str: pa.string(),
    int: pa.int64(),
    float: pa.float64(),
    bool: pa.bool_(),
}


def _arrow_type(hint: Any) -> pa.DataType:
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        inner = [a for a in typing.get_args(hint) if a is not type(None)]
        return _arrow_type(inner[0])
    if isinstance(hint, type) and issubclass(hint, StrEnum):
        return pa.string()  # an enum's value; Parquet dictionary-encodes the column
    return _ARROW_TYPES[hint]


def _enum_fields(cls: type[Any]) -> dict[str, type[StrEnum]]:
    """The fields of a record typed with a vocabulary enum."""
    hints = typing.get_type_hints(cls)
    return {
        f.name: hints[f.name]
        for f in dataclasses.fields(cls)
        if isinstance(hints[f.name], type) and issubclass(hints[f.name], StrEnum)
    }


_ENUM_FIELDS = {table: _enum_fields(cls) for table, cls in TABLES.items()}


def arrow_schema(table: str) -> pa.Schema:
    """The Arrow schema of a table, derived from its record's type hints."""
    cls = TABLES[table]
    hints = typing.get_type_hints(cls)
    return pa.schema([pa.field(f.name, _arrow_type(hints[f.name])) for f in dataclasses.fields(cls)])


def columns(table: str) -> list[str]:
    return [f.name for f in dataclasses.fields(TABLES[table])]


def to_row(record: Any) -> dict[str, Any]:
    """A record as a flat dict (what the journal stores)."""
    return dataclasses.asdict(record)


def from_row(table: str, row: dict[str, Any]) -> Any:
    """Rebuild a record, ignoring unknown keys (written by a later compatible minor change)."""
    cls = TABLES[table]
    names = {f.name for f in dataclasses.fields(cls)}
    values = {k: v for k, v in row.items() if k in names}
    for name, enum in _ENUM_FIELDS[table].items():
        if name in values:
            values[name] = enum(values[name])
    return cls(**values)


__all__ = [
    "RECORD_TYPES",
    "SCHEMA_VERSION",
    "TABLES",
    "Exposure",
    "Message",
    "ModelCall",
    "ResourceSample",
    "ServerSample",
    "TaskRun",
    "ToolCall",
    "arrow_schema",
    "columns",
    "from_row",
    "to_row",
]
