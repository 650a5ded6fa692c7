"""Trace-store benchmark: ingest and summarize a synthetic run of N trace records.

Two pipelines over the same records, each in its own child process (so each phase's peak
memory is its own):

- store: ``RunStore.append_columns`` (columnar bulk path) → ``compact`` (Parquet) →
  ``agbench.metrics.read_tables`` + ``summarize``;
- baseline, what a user would otherwise write: one JSON line per record (``json.dumps``),
  loaded back with ``pandas.read_json(lines=True)`` and summarized by the same function.

Records are model calls (50 %), tool calls (30 %), server and resource samples (10 % each)
plus one task_runs row per attempt (100 model calls per attempt). Generating them is not
timed. Figures are printed, never asserted.

    .venv/bin/python bench/trace_store.py                 # 10 million records
    .venv/bin/python bench/trace_store.py --records 200000
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import multiprocessing as mp
import os
import resource
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd
import pyarrow as pa

from agbench.metrics import read_tables, summarize
from agbench.records import TABLES, arrow_schema
from agbench.results import RunSummary
from agbench.store import RunStore
from agbench.task import CATEGORIES

ARCHS = ["LO", "CO", "HCL", "HLL"]
CONCURRENCY = [1, 2, 4, 8]
CALLS_PER_ATTEMPT = 100
BATCH = 1_000_000
BASELINE_DEFAULT_MAX = 1_000_000
STATUSES = np.array(["success", "verification_failed", "context_limit", "execution_error", "timeout"])


def _strings(values: list[str], index: np.ndarray) -> pa.Array:
    """A plain string column built in C from a small vocabulary (no Python object per row)."""
    return pa.array(values, pa.string()).take(pa.array(index))


def synthesize(n_records: int, seed: int = 1) -> Iterator[tuple[str, pa.Table]]:
    """The synthetic run as (table, Arrow batch of at most BATCH rows), built lazily so that
    only one batch is in memory at a time; the same seed gives the same records."""
    rng = np.random.default_rng(seed)
    n_model = n_records // 2
    n_tool = n_records * 3 // 10
    n_server = n_records // 10
    n_resource = n_records - n_model - n_tool - n_server
    n_configs = len(ARCHS) * len(CONCURRENCY)
    n_attempts = max(n_configs, n_model // CALLS_PER_ATTEMPT)
    attempts_per_config = -(-n_attempts // n_configs)
    n_attempts = attempts_per_config * n_configs
    task_names = [f"task-{i:05d}" for i in range(attempts_per_config)]
    categories = list(CATEGORIES)

    attempt_config = np.repeat(np.arange(n_configs), attempts_per_config)
    attempt_task = np.tile(np.arange(attempts_per_config), n_configs)
    conc_of = np.array([CONCURRENCY[i % len(CONCURRENCY)] for i in range(n_configs)], dtype=np.int64)
    start = attempt_task * 30.0 / conc_of[attempt_config]
    wall = rng.gamma(2.0, 20.0, n_attempts)
    task_runs = pa.table(
        {
            "run_id": _strings(["bench"], np.zeros(n_attempts, dtype=np.int64)),
            "device": _strings(["box"], np.zeros(n_attempts, dtype=np.int64)),
            "architecture": _strings(ARCHS, attempt_config // len(CONCURRENCY)),
            "concurrency": conc_of[attempt_config],
            "agent_kind": _strings(["replay"], np.zeros(n_attempts, dtype=np.int64)),
            "task": _strings(task_names, attempt_task),
            "category": _strings(categories, attempt_task % len(categories)),
            "attempt": np.ones(n_attempts, dtype=np.int64),
            "t_start": start,
            "t_end": start + wall,
            "status": _strings(list(STATUSES), rng.choice(5, n_attempts, p=[0.6, 0.2, 0.1, 0.05, 0.05])),
            "local_model_s": wall * 0.5,
            "cloud_model_s": wall * 0.2,
            "tools_s": wall * 0.2,
            "other_s": wall * 0.1,
            "cloud_prompt_tokens": rng.integers(0, 20000, n_attempts),
            "cloud_cached_tokens": rng.integers(0, 5000, n_attempts),
            "cloud_completion_tokens": rng.integers(0, 2000, n_attempts),
            "cloud_cost_usd": rng.random(n_attempts) * 0.01,
            "cloud_calls": rng.integers(0, 20, n_attempts),
            "sensitive_total": rng.integers(0, 4, n_attempts),
            "full_capability": np.ones(n_attempts, dtype=bool),
        }
    )

    def batches(n: int, build: Any) -> list[Any]:
        return [functools.partial(build, min(BATCH, n - lo), lo, n) for lo in range(0, n, BATCH)]

    def model_batch(n: int, lo: int, total: int) -> pa.Table:
        cols = per_attempt_rows(n, lo, total)
        cloud = rng.random(n) < 0.3
        cols |= {
            "agent": _strings(["local", "cloud"], cloud.astype(np.int64)),
            "endpoint": _strings(["local", "cloud"], cloud.astype(np.int64)),
            "call_id": _strings(["c"], np.zeros(n, dtype=np.int64)),
            "ttft_s": rng.lognormal(-1.0, 0.8, n),
            "total_s": rng.lognormal(1.0, 0.5, n),
            "queue_s": rng.exponential(0.1, n),
            "prompt_tokens": rng.integers(100, 8000, n),
            "completion_tokens": rng.integers(1, 500, n),
            "output_tok_s": rng.normal(40.0, 8.0, n),
            "finish_reason": _strings(["stop", "length"], (rng.random(n) < 0.05).astype(np.int64)),
            "error_class": _strings(["", "context_limit"], (rng.random(n) < 0.01).astype(np.int64)),
            "status_code": np.full(n, 200, dtype=np.int64),
        }
        return pa.table(cols)

    def tool_batch(n: int, lo: int, total: int) -> pa.Table:
        cols = per_attempt_rows(n, lo, total)
        cols |= {
            "agent": _strings(["local"], np.zeros(n, dtype=np.int64)),
            "call_id": _strings(["t"], np.zeros(n, dtype=np.int64)),
            "tool": _strings(["shell", "read_file", "search", "python"], rng.integers(0, 4, n)),
            "wall_s": rng.exponential(0.5, n),
            "cpu_s": rng.exponential(0.2, n),
            "bytes_out": rng.integers(0, 10000, n),
        }
        return pa.table(cols)

    def sample_batch(extra: dict[str, Any]) -> Any:
        def build(n: int, lo: int, total: int) -> pa.Table:
            cfg = (np.arange(lo, lo + n) * n_configs) // total
            cols = {
                "run_id": _strings(["bench"], np.zeros(n, dtype=np.int64)),
                "device": _strings(["box"], np.zeros(n, dtype=np.int64)),
                "architecture": _strings(ARCHS, cfg // len(CONCURRENCY)),
                "concurrency": conc_of[cfg],
                "t": np.arange(lo, lo + n, dtype=np.float64) * 0.1,
            }
            cols |= {name: make(n) for name, make in extra.items()}
            return pa.table(cols)

        return build

    def per_attempt_rows(n: int, lo: int, total: int) -> dict[str, Any]:
        which = np.minimum((np.arange(lo, lo + n) * n_attempts) // total, n_attempts - 1)
        cfg = attempt_config[which]
        return {
            "run_id": _strings(["bench"], np.zeros(n, dtype=np.int64)),
            "device": _strings(["box"], np.zeros(n, dtype=np.int64)),
            "architecture": _strings(ARCHS, cfg // len(CONCURRENCY)),
            "concurrency": conc_of[cfg],
            "task": _strings(task_names, attempt_task[which]),
            "attempt": np.ones(n, dtype=np.int64),
            "t_start": start[which] + rng.random(n) * wall[which],
        }

    server = sample_batch(
        {
            "server": lambda n: _strings(["local"], np.zeros(n, dtype=np.int64)),
            "slots_busy": lambda n: rng.integers(0, 8, n),
            "slots_total": lambda n: np.full(n, 8, dtype=np.int64),
            "kv_used": lambda n: rng.integers(0, 32768, n),
            "kv_total": lambda n: np.full(n, 32768, dtype=np.int64),
            "requests_waiting": lambda n: rng.integers(0, 4, n),
        }
    )
    resources = sample_batch(
        {
            "cpu_percent": lambda n: rng.random(n) * 100,
            "mem_used_bytes": lambda n: rng.integers(1 << 30, 4 << 30, n),
            "mem_total_bytes": lambda n: np.full(n, 8 << 30, dtype=np.int64),
        }
    )
    data = {
        "task_runs": [lambda: task_runs],
        "model_calls": batches(n_model, model_batch),
        "tool_calls": batches(n_tool, tool_batch),
        "server_samples": batches(n_server, server),
        "resource_samples": batches(n_resource, resources),
    }
    for table, builders in data.items():
        for build in builders:
            yield table, full_schema(table, build())


def full_schema(table: str, batch: pa.Table) -> pa.Table:
    """Every column of the table's schema (record defaults where the generator left one out),
    so both pipelines store exactly the same records."""
    schema = arrow_schema(table)
    defaults = {f.name: f.default for f in dataclasses.fields(TABLES[table])}
    for field in schema:
        if field.name not in batch.column_names:
            default = defaults[field.name]
            value = None if default is dataclasses.MISSING else default
            batch = batch.append_column(field.name, pa.array([value] * 1, field.type).take(
                pa.array(np.zeros(batch.num_rows, dtype=np.int64))))  # fmt: skip
    return batch.select(schema.names).cast(schema)


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _digest(summary: RunSummary) -> list[tuple[Any, ...]]:
    """The figures both pipelines must agree on."""
    return [
        (
            c.architecture.value,
            c.concurrency,
            c.tasks,
            c.success,
            round(c.suite_wall_s, 6),
            round(c.ttft_p50_s or 0.0, 9),
            round(c.kv_peak_fraction or 0.0, 9),
        )
        for c in summary.configurations
    ]


def store_ingest(n_records: int, workdir: Path) -> dict[str, Any]:
    """append_columns every batch (timed), then compact (timed)."""
    store = RunStore.create(
        workdir / "store-run", {"source": "sim", "run_id": "bench", "agent_kind": "replay"}
    )
    rows, t_append, cpu_append = 0, 0.0, 0.0
    for table, batch in synthesize(n_records):
        t0, c0 = time.perf_counter(), time.process_time()
        store.append_columns(table, batch)
        t_append += time.perf_counter() - t0
        cpu_append += time.process_time() - c0
        rows += batch.num_rows
    t0, c0 = time.perf_counter(), time.process_time()
    store.compact()
    t_compact = time.perf_counter() - t0
    cpu_compact = time.process_time() - c0
    size = sum(p.stat().st_size for p in (workdir / "store-run" / "traces").glob("*.parquet"))
    return {
        "rows": rows,
        "write_s": t_append,
        "write_cpu_s": cpu_append,
        "compact_s": t_compact,
        "compact_cpu_s": cpu_compact,
        "bytes": size,
        "peak_rss_mb": _peak_rss_mb(),
    }


def store_summary(n_records: int, workdir: Path) -> dict[str, Any]:
    """Open the compacted run, load the columns the metrics need, summarize."""
    t0, c0 = time.perf_counter(), time.process_time()
    store = RunStore.open(workdir / "store-run")
    summary = summarize(read_tables(store), store.meta())
    return {
        "summary_s": time.perf_counter() - t0,
        "summary_cpu_s": time.process_time() - c0,
        "peak_rss_mb": _peak_rss_mb(),
        "digest": _digest(summary),
    }


def baseline_write(n_records: int, workdir: Path) -> dict[str, Any]:
    """One json.dumps line per record, one file per table (only the writing is timed)."""
    root = workdir / "baseline"
    root.mkdir(exist_ok=True)
    files: dict[str, IO[str]] = {}
    rows, t_write, cpu_write = 0, 0.0, 0.0
    for table, batch in synthesize(n_records):
        records = batch.to_pylist()
        t0, c0 = time.perf_counter(), time.process_time()
        fh = files.get(table) or files.setdefault(table, (root / f"{table}.jsonl").open("w"))
        for record in records:
            fh.write(json.dumps(record) + "\n")
        fh.flush()
        t_write += time.perf_counter() - t0
        cpu_write += time.process_time() - c0
        rows += len(records)
    for fh in files.values():
        fh.close()
    size = sum(p.stat().st_size for p in root.glob("*.jsonl"))
    return {
        "rows": rows,
        "write_s": t_write,
        "write_cpu_s": cpu_write,
        "bytes": size,
        "peak_rss_mb": _peak_rss_mb(),
    }


def baseline_summary(n_records: int, workdir: Path) -> dict[str, Any]:
    """pandas.read_json(lines=True) per table, then the same summarize."""
    t0, c0 = time.perf_counter(), time.process_time()
    tables = {}
    for table in TABLES:
        path = workdir / "baseline" / f"{table}.jsonl"
        if path.is_file():
            tables[table] = pd.read_json(path, lines=True, dtype=False)
    t_load = time.perf_counter() - t0
    summary = summarize(tables, {"source": "sim", "run_id": "bench"})
    return {
        "summary_s": time.perf_counter() - t0,
        "summary_cpu_s": time.process_time() - c0,
        "load_s": t_load,
        "peak_rss_mb": _peak_rss_mb(),
        "digest": _digest(summary),
    }


def _child(target: Any, n: int, workdir: Path, queue: Any) -> None:
    queue.put(target(n, workdir))


def _run_child(target: Any, n: int, workdir: Path) -> dict[str, Any]:
    """Run one phase in a fresh process, so its peak memory is its own."""
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_child, args=(target, n, workdir, queue))
    proc.start()
    while True:
        try:
            result: dict[str, Any] = queue.get(timeout=1.0)
            break
        except Exception:
            if not proc.is_alive():
                raise SystemExit(f"{target.__name__} failed (exit code {proc.exitcode})") from None
    proc.join()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--records", type=int, default=10_000_000, help="trace records to write (default 10 M)"
    )
    parser.add_argument(
        "--baseline-records",
        type=int,
        default=None,
        help="records for the baseline (default: the same, at most 1 M: pandas.read_json needs ~3 GB per"
        " million records, so 10 M would not fit this machine; its times are scaled linearly)",
    )
    parser.add_argument("--workdir", type=Path, default=None, help="scratch directory (default: a temp dir)")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="agbench-bench-", dir=args.workdir))
    n_base = args.baseline_records or min(args.records, BASELINE_DEFAULT_MAX)
    try:
        print(
            f"cpus: {os.cpu_count()}  records: {args.records:,}  baseline records: {n_base:,}"
            f"  load average: {_load()}",
            flush=True,
        )
        ingest = _run_child(store_ingest, args.records, workdir)
        summary = _run_child(store_summary, args.records, workdir)
        rows = ingest["rows"]
        write, compact = ingest["write_s"], ingest["compact_s"]
        print(
            f"store    append_columns: {rows / write:,.0f} records/s ({write:.2f} s wall, {ingest['write_cpu_s']:.2f} s CPU)"
        )
        print(
            f"store    compact: {compact:.2f} s wall, {ingest['compact_cpu_s']:.2f} s CPU;"
            f" ingest incl. compact {rows / (write + compact):,.0f} records/s"
            f" ({rows / (ingest['write_cpu_s'] + ingest['compact_cpu_s']):,.0f} per CPU-second);"
            f" peak RSS {ingest['peak_rss_mb']:,.0f} MB; {ingest['bytes'] / 1e6:,.0f} MB on disk"
        )
        print(
            f"store    summary (open + read columns + summarize): {summary['summary_s']:.2f} s wall,"
            f" {summary['summary_cpu_s']:.2f} s CPU; peak RSS {summary['peak_rss_mb']:,.0f} MB",
            flush=True,
        )
        b_write = _run_child(baseline_write, n_base, workdir)
        b_summary = _run_child(baseline_summary, n_base, workdir)
        b_rows = b_write["rows"]
        scale = rows / b_rows
        print(
            f"baseline ingest (json.dumps lines): {b_rows / b_write['write_s']:,.0f} records/s"
            f" ({b_write['write_s']:.2f} s wall, {b_write['write_cpu_s']:.2f} s CPU); {b_write['bytes'] / 1e6:,.0f} MB on disk"
        )
        print(
            f"baseline summary (read_json + summarize): {b_summary['summary_s']:.2f} s wall,"
            f" {b_summary['summary_cpu_s']:.2f} s CPU"
            f" (load {b_summary['load_s']:.2f} s); peak RSS {b_summary['peak_rss_mb']:,.0f} MB",
            flush=True,
        )
        if scale != 1:
            print(
                f"(baseline measured on {b_rows:,} records; its times are scaled ×{scale:.2f} in the ratios)"
            )
        store_ingest_rate = rows / (ingest["write_s"] + ingest["compact_s"])
        print(
            f"ratio ingest incl. compact (store / baseline records/s): {store_ingest_rate / (b_rows / b_write['write_s']):.1f}x"
        )
        print(
            f"ratio summary (baseline s / store s): {b_summary['summary_s'] * scale / summary['summary_s']:.1f}x"
        )
        total_store = ingest["write_s"] + ingest["compact_s"] + summary["summary_s"]
        total_base = (b_write["write_s"] + b_summary["summary_s"]) * scale
        print(f"ratio end to end (write + summarize): {total_base / total_store:.1f}x")
        # CPU seconds do not depend on what else the machine runs: the fairer ratio on a shared box.
        cpu_store = ingest["write_cpu_s"] + ingest["compact_cpu_s"]
        print(
            f"ratio in CPU seconds: ingest incl. compact {b_write['write_cpu_s'] * scale / cpu_store:.1f}x,"
            f" summary {b_summary['summary_cpu_s'] * scale / summary['summary_cpu_s']:.1f}x,"
            f" end to end {(b_write['write_cpu_s'] + b_summary['summary_cpu_s']) * scale / (cpu_store + summary['summary_cpu_s']):.1f}x"
        )
        print(
            f"targets: ingest >= 1 M records/s: {rows / (write + ingest['compact_s']) / 1e6:.2f} M/s wall incl. compact,"
            f" {rows / write / 1e6:.2f} M/s append only, {rows / cpu_store / 1e6:.2f} M per CPU-second;"
            f" summary of {rows / 1e6:.0f} M records < 10 s: {summary['summary_s']:.2f} s"
        )
        if scale == 1:
            print(f"summaries agree: {'yes' if summary['digest'] == b_summary['digest'] else 'NO'}")
        # Wall times on a shared machine depend on its other load; CPU seconds much less so.
        print(f"load average at the end: {_load()}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
