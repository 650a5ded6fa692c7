"""The paper's metrics, computed from the trace tables of any run, live or simulated.

``summarize(tables, meta)`` is the one code path behind ``summary.json``, the HTML report and
sim-vs-live validation: the simulator writes the same tables as the live harness, so
validation compares two summaries. Definitions (DESIGN.md, "Metrics"):

- counted attempts: ``interrupted`` attempts never count; of several finished attempts of a
  (configuration, task) pair, the last one counts; serving, cost and exposure figures use
  only the counted attempts' rows, so an interrupted attempt never changes any result.
- ``mean_completion_s_common``: mean wall time of the tasks that every architecture present
  in the same device × concurrency cell solved (null when that set is empty).
- ``suite_wall_s``: last counted attempt's end − first counted attempt's start;
  ``goodput_per_h`` = successes / suite hours (0 for a zero-length suite).
- ``time_breakdown_s``: MEAN seconds per counted task waiting on the local model, the cloud
  model, tools, and everything else (``time_breakdown_total_s`` has the sums).
- ``exposure_ratio``: distinct (task, item) pairs seen in cloud-bound payloads / the sum of
  the tasks' sensitive items, per configuration.
- scores: success fractions over all / valid / valid-with-full-capability tasks (README).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from agbench.config import Architecture
from agbench.errors import RunDirError
from agbench.metrics.cost import cost_metrics, exposure_metrics, price_table
from agbench.metrics.energy import SAMPLE_COLUMNS as ENERGY_SAMPLE_COLUMNS
from agbench.metrics.energy import energy_metrics
from agbench.metrics.outcomes import (
    ATTEMPT_KEYS,
    CONFIG_KEYS,
    FAILURE_STATUSES,
    common_success_tasks,
    counted_attempts,
    outcome_metrics,
    scores,
)
from agbench.metrics.repeats import repeat_spread, repeats_of
from agbench.metrics.serving import endpoint_figures, sample_figures, serving_metrics
from agbench.records import TABLES, columns
from agbench.results.summary import SUMMARY_SCHEMA_VERSION, RunSummary
from agbench.status import Status
from agbench.store import RunStore

# The columns summarize reads from each table: loading only these keeps a 10-million-row
# run's summary in seconds (see bench/trace_store.py).
METRIC_COLUMNS: dict[str, list[str]] = {
    "task_runs": columns("task_runs"),
    "model_calls": [
        *ATTEMPT_KEYS,
        "endpoint",
        "t_start",
        "ttft_s",
        "output_tok_s",
        "total_s",
        "queue_s",
        "error_class",
    ],
    "tool_calls": [*ATTEMPT_KEYS, "tool", "wall_s", "cpu_s"],
    "messages": [*ATTEMPT_KEYS, "kind", "ok"],
    "server_samples": [*CONFIG_KEYS, "server", "t", "kv_used", "kv_total", "slots_busy", "requests_waiting"],
    "resource_samples": [*CONFIG_KEYS, "t", "cpu_percent", "mem_used_bytes", *ENERGY_SAMPLE_COLUMNS],
    "exposures": [*ATTEMPT_KEYS, "item"],
}
# Low-cardinality strings are read as categoricals: far fewer Python objects to build.
_CATEGORICAL = {"device", "architecture", "task", "endpoint", "error_class", "tool", "kind", "item"}
_SECRET_KEYS = {"api_key", "authorization", "password", "secret", "token"}
_ARCH_ORDER = {a.value: i for i, a in enumerate(Architecture)}


def read_tables(store: RunStore, tables: dict[str, list[str]] | None = None) -> dict[str, pd.DataFrame]:
    """Load the trace tables summarize needs, column-pruned (compacting the run if needed)."""
    wanted = tables or METRIC_COLUMNS
    out: dict[str, pd.DataFrame] = {"task_runs": store.table("task_runs")}  # compacts if needed
    for name, cols in wanted.items():
        if name == "task_runs":
            continue
        path = store.traces_dir / f"{name}.parquet"
        try:
            present = set(pq.read_schema(path).names)  # an older writer's table lacks newer columns
            cols = [c for c in cols if c in present]
            table = pq.read_table(path, columns=cols, read_dictionary=[c for c in cols if c in _CATEGORICAL])
        except (OSError, pa.ArrowInvalid) as exc:
            raise RunDirError(f"{path} is missing or corrupt: {exc}") from None
        out[name] = table.to_pandas()
    return out


def _empty(table: str) -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype="object") for c in columns(table)})


def with_defaults(frame: pd.DataFrame, table: str) -> pd.DataFrame:
    """The frame with every column ``summarize`` reads, absent ones filled with the record's
    default: tables built by hand or by an older writer may leave optional columns out."""
    needed = METRIC_COLUMNS[table]
    missing = [c for c in needed if c not in frame.columns]
    if not missing:
        return frame
    defaults = {f.name: f.default for f in dataclasses.fields(TABLES[table])}
    frame = frame.copy()
    for name in missing:
        default = defaults.get(name)
        frame[name] = None if default is dataclasses.MISSING else default
    return frame


def only_counted(frame: pd.DataFrame, counted: pd.DataFrame) -> pd.DataFrame:
    """The rows of a per-attempt table that belong to counted attempts.

    Each key column is factorized (categoricals give their codes for free) and the codes are
    folded into one int64 attempt key, so the big table is hashed once, as integers, instead
    of joined on five columns of strings.
    """
    if not len(frame):
        return frame
    big = np.zeros(len(frame), dtype=np.int64)
    small = np.zeros(len(counted), dtype=np.int64)
    known = np.ones(len(counted), dtype=bool)
    for col in ATTEMPT_KEYS:
        codes, uniques = pd.factorize(frame[col], sort=False)
        index = pd.Index(uniques.astype(str) if col in ("device", "architecture", "task") else uniques)
        values = counted[col].astype(str) if col in ("device", "architecture", "task") else counted[col]
        positions = index.get_indexer(values)
        known &= positions >= 0
        radix = len(index) + 1
        big = big * radix + codes.astype(np.int64)
        small = small * radix + positions.astype(np.int64)
    mask = pd.Series(big).isin(small[known]).to_numpy()
    return frame[mask]


def _group(frame: pd.DataFrame) -> dict[tuple[str, str, int], pd.DataFrame]:
    if not len(frame):
        return {}
    return {config_of(key): rows for key, rows in frame.groupby(CONFIG_KEYS, sort=False, observed=True)}


def _sums(
    frame: pd.DataFrame, aggregations: dict[str, tuple[str, str]]
) -> dict[tuple[str, str, int], dict[str, Any]]:
    """Named per-configuration aggregates of a table, as plain floats."""
    if not len(frame):
        return {}
    table: dict[Any, dict[Any, Any]] = (
        frame.groupby(CONFIG_KEYS, observed=True, sort=False).agg(**aggregations).to_dict(orient="index")
    )
    return {
        config_of(index): {str(k): int(v) if str(k).startswith("mem") else float(v) for k, v in row.items()}
        for index, row in table.items()
    }


def labels_of(meta: dict[str, Any]) -> list[str]:
    """What a reader must know about how the figures were produced, from run metadata."""
    labels = [str(x) for x in meta.get("labels", []) or []]
    cloud = meta.get("cloud") if isinstance(meta.get("cloud"), dict) else {}
    if meta.get("cloud_standin") or (cloud and cloud.get("standin")):
        labels.append("cloud stand-in")
    if meta.get("mock_provider") or meta.get("provider") == "mock":
        labels.append("mock provider")
    if meta.get("source") == "sim":
        labels.append("simulated")
    restarts = int(meta.get("server_restarts") or 0)
    if restarts:  # the watchdog restarted a dead or hung managed server mid-run
        labels.append(f"managed server restarted {restarts} time{'s' if restarts > 1 else ''}")
    gate = meta.get("cloud_gate") if isinstance(meta.get("cloud_gate"), dict) else {}
    if gate and gate.get("refused_calls"):
        labels.append(f"cloud budget of ${gate.get('max_usd')} reached")
    limits = meta.get("sandbox_limits") if isinstance(meta.get("sandbox_limits"), dict) else {}
    for line, attempts in (limits or {}).items():  # "bwrap: memory=cgroup_v1 pids=no" -> attempts
        backend, _, parts = str(line).partition(": ")
        missing = [p.split("=")[0] for p in parts.split() if p.endswith("=no")]
        if missing:
            what = ", ".join(missing)
            labels.append(f"sandbox limits not enforced: {what} ({backend}, {attempts} attempts)")
    return list(dict.fromkeys(labels))


def public_meta(meta: dict[str, Any]) -> dict[str, Any]:
    """Run metadata with anything secret-looking removed (reports never carry secrets)."""

    def clean(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if str(k).lower() not in _SECRET_KEYS}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    cleaned = clean(meta)
    assert isinstance(cleaned, dict)
    return cleaned


def _config_order(key: tuple[str, str, int]) -> tuple[str, int, int]:
    return (key[0], _ARCH_ORDER.get(key[1], 99), key[2])


def summarize(tables: dict[str, pd.DataFrame], meta: dict[str, Any]) -> RunSummary:
    """The summary of one run (the model written as summary.json).

    Raises ``RunDirError`` when the run has no finished task to summarize.
    """
    task_runs = tables.get("task_runs")
    if task_runs is None or not len(task_runs):
        raise RunDirError(f"run {meta.get('run_id', '?')} has no finished task to summarize")
    tables = {name: with_defaults(frame, name) for name, frame in tables.items() if name in METRIC_COLUMNS}
    task_runs = tables["task_runs"]
    repeats = repeats_of(meta)  # --repeat N: every repeat counts, and gets its spread
    counted = counted_attempts(task_runs, repeats)
    if not len(counted):
        raise RunDirError(
            f"run {meta.get('run_id', '?')} has no finished task (all attempts were interrupted)"
        )
    for col in ("device", "architecture", "task", "category"):
        counted[col] = counted[col].astype(str)
    detail = {
        name: only_counted(tables[name], counted) if name in tables else _empty(name)
        for name in ("model_calls", "tool_calls", "messages", "exposures")
    }
    samples = {
        name: tables[name] if name in tables else _empty(name)
        for name in ("server_samples", "resource_samples")
    }
    endpoints = endpoint_figures(detail["model_calls"])
    server = sample_figures(samples["server_samples"])
    tools = _sums(
        detail["tool_calls"], {"tool_wall_s_total": ("wall_s", "sum"), "tool_cpu_s_total": ("cpu_s", "sum")}
    )
    resources = _sums(
        samples["resource_samples"],
        {"cpu_percent_peak": ("cpu_percent", "max"), "mem_used_bytes_peak": ("mem_used_bytes", "max")},
    )
    exposures = _group(detail["exposures"])
    calls = detail["model_calls"]
    local_calls = _group(calls[calls["endpoint"].astype(str) == "local"] if len(calls) else calls)
    samples_by_config = _group(samples["resource_samples"])
    messages = _group(detail["messages"])
    common = common_success_tasks(counted)
    prices = price_table(meta)

    configurations: list[dict[str, Any]] = []
    for (device, arch, conc), rows in sorted(
        ((config_of(k), v) for k, v in counted.groupby(CONFIG_KEYS, sort=False)),
        key=lambda kv: _config_order(kv[0]),
    ):
        key = (device, arch, conc)
        entry: dict[str, Any] = {
            "source": str(meta.get("source", "live")),
            "device": device,
            "architecture": arch,
        }
        entry["concurrency"] = conc
        entry.update(outcome_metrics(rows, common.get((device, conc), set())))
        if repeats > 1:
            entry["repeats"] = repeat_spread(rows)
        entry.update(cost_metrics(rows, prices))
        entry.update(exposure_metrics(rows, exposures.get(key, _empty("exposures"))))
        entry.update(serving_metrics(endpoints.get(key, {}), server.get(key)))
        sent = messages.get(key)
        entry["messages"] = (
            {str(k): int(v) for k, v in sent["kind"].astype(str).value_counts().sort_index().items()}
            if sent is not None
            else {}
        )
        entry.update(tools.get(key, {"tool_wall_s_total": 0.0, "tool_cpu_s_total": 0.0}))
        entry.update(resources.get(key, {"cpu_percent_peak": None, "mem_used_bytes_peak": None}))
        entry.update(
            energy_metrics(
                samples_by_config.get(key),
                local_calls.get(key),
                tasks=int(entry["tasks"]),
                successes=int(entry["success"]),
                window_s=float(entry["suite_wall_s"]),
                meta=meta,
                device=device,
            )
        )
        configurations.append(entry)

    interrupted = int((task_runs["status"].astype(str) == Status.INTERRUPTED).sum())
    agent_kinds = sorted({str(k) for k in task_runs["agent_kind"].astype(str) if k})
    document = {
        "schema_version": SUMMARY_SCHEMA_VERSION,
        "source": str(meta.get("source", "live")),
        "run_id": str(meta.get("run_id", "")),
        "agent_kind": str(
            meta.get("agent_kind") or (agent_kinds[0] if len(agent_kinds) == 1 else ",".join(agent_kinds))
        ),
        "labels": labels_of(meta),
        "meta": public_meta(meta),
        "configurations": configurations,
        "totals": {
            "tasks": len(counted),
            "success": int((counted["status"] == Status.SUCCESS).sum()),
            "failures": {s: int((counted["status"] == s).sum()) for s in FAILURE_STATUSES},
            "interrupted_attempts": interrupted,
            "attempts": len(task_runs),
            **scores(counted),
        },
        "categories": sorted(counted["category"].unique().tolist()),
    }
    return RunSummary.model_validate(document)


def config_of(key: Any) -> tuple[str, str, int]:
    device, arch, conc = key
    return (str(device), str(arch), int(conc))


def summarize_run(run_dir: Path) -> RunSummary:
    """Open a run directory and summarize it (one-line RunDirError on bad input)."""
    store = RunStore.open(run_dir)
    return summarize(read_tables(store), store.meta())


__all__ = [
    "METRIC_COLUMNS",
    "config_of",
    "labels_of",
    "only_counted",
    "public_meta",
    "read_tables",
    "summarize",
    "summarize_run",
]
