"""A run directory: metadata, journals, compacted Parquet tables, and resume.

Layout::

    RUN_DIR/run.json                         run metadata (source, device, agent kind, server, seed...)
    RUN_DIR/journal/<config>/<task>/<n>.jsonl one journal per task attempt (live runs)
    RUN_DIR/journal/samples/<name>.jsonl      monitor samples (server, resources)
    RUN_DIR/traces/parts/<table>/<n>.parquet  columnar batches written in bulk (simulator, benchmarks):
                                             one file per store session, ``<n>.parquet.open`` while
                                             it is being written
    RUN_DIR/traces/<table>.parquet            compacted tables, what metrics and reports read

An attempt has finished when its journal holds its ``task_runs`` row. Re-opening a run after
a crash finds the attempts without one and marks them ``interrupted`` (kept, never counted);
the runner then re-runs only the (configuration, task) pairs that have no finished attempt.

Bulk parts are written with the compacted tables' own Parquet settings, so compacting a table
that has one part and no journal rows (every simulated run, the benchmark) hard-links the
part as ``traces/<table>.parquet`` instead of decoding and re-encoding it: compaction of ten
million rows costs milliseconds, not seconds. The parts stay, so compaction stays idempotent.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import time
import weakref
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from agbench.attempt import AttemptKey
from agbench.config import Architecture, Configuration
from agbench.errors import AgbenchError, RunDirError, SchemaVersionError
from agbench.journal import JournalContents, JournalWriter, read_journal
from agbench.records import SCHEMA_VERSION, TABLES, TaskRun, arrow_schema, columns
from agbench.run_meta import RunMeta
from agbench.status import Status

if TYPE_CHECKING:
    import duckdb

RUN_META = "run.json"

log = logging.getLogger(__name__)

# One set of Parquet settings for bulk parts and compacted tables alike, so a part can become
# its table without re-encoding. lz4 writes and reads faster than zstd for ~10 % more bytes;
# dictionary encoding pays only for strings (numeric trace columns are nearly all distinct);
# min/max statistics cost ~25 % of the encoding time, so only the columns a query filters on
# (configuration, attempt, time) carry them. Measured in bench/trace_store.py.
PARQUET_COMPRESSION = "lz4"
STATISTICS_COLUMNS = (
    "run_id",
    "device",
    "architecture",
    "concurrency",
    "task",
    "attempt",
    "status",
    "t_start",
    "t",
)
# Batches below this many rows are buffered and written together: one row group per tiny
# batch would make every later read slow.
ROW_GROUP_ROWS = 1 << 16
PART_SUFFIX = ".parquet"
OPEN_PART_SUFFIX = ".parquet.open"


def parquet_writer(path: Path, schema: pa.Schema) -> pq.ParquetWriter:
    """A writer with the store's settings (parts and compacted tables share them)."""
    return pq.ParquetWriter(
        path,
        schema,
        compression=PARQUET_COMPRESSION,
        use_dictionary=[f.name for f in schema if pa.types.is_string(f.type)],
        write_statistics=[c for c in STATISTICS_COLUMNS if c in schema.names],
    )


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._=-]+", "_", name)


class _OpenPart:
    """The bulk part a store session is writing for one table: small batches are buffered
    up to a row group, and the file is renamed from ``.parquet.open`` to ``.parquet`` only
    once its footer is written, so a crashed writer never leaves a part that looks whole."""

    def __init__(self, path: Path, schema: pa.Schema) -> None:
        self.path = path
        self.open_path = path.with_name(path.name.removesuffix(PART_SUFFIX) + OPEN_PART_SUFFIX)
        self.writer = parquet_writer(self.open_path, schema)
        self.pending: list[pa.Table] = []
        self.pending_rows = 0

    def write(self, batch: pa.Table) -> None:
        if batch.num_rows >= ROW_GROUP_ROWS:
            self.flush()
            self.writer.write_table(batch)
            return
        self.pending.append(batch)
        self.pending_rows += batch.num_rows
        if self.pending_rows >= ROW_GROUP_ROWS:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            self.writer.write_table(pa.concat_tables(self.pending))
            self.pending, self.pending_rows = [], 0

    def close(self) -> None:
        self.flush()
        self.writer.close()
        self.open_path.replace(self.path)


def _close_parts(parts: dict[str, _OpenPart]) -> None:
    """Close every open part (also run when a store is dropped or the interpreter exits, so
    bulk rows appended without an explicit ``compact`` or ``close_writers`` still land)."""
    while parts:
        _, part = parts.popitem()
        part.close()


class RunStore:
    """Reads and writes one run directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.journal_dir = root / "journal"
        self.traces_dir = root / "traces"
        self._writers: list[JournalWriter] = []
        self._parts: dict[str, _OpenPart] = {}  # the bulk part being written, per table
        self._parts_finalizer = weakref.finalize(self, _close_parts, self._parts)

    # ---- creating and opening -------------------------------------------------------------
    @classmethod
    def create(cls, root: Path, meta: RunMeta | dict[str, Any]) -> RunStore:
        """Start a new run directory (it may exist but must not hold a run already)."""
        if (root / RUN_META).exists():
            raise RunDirError(f"{root} already holds a run; use --resume {root} to continue it")
        root.mkdir(parents=True, exist_ok=True)
        store = cls(root)
        if isinstance(meta, dict):
            meta = RunMeta.from_dict({"run_id": root.name, **meta})
        meta.schema, meta.created = SCHEMA_VERSION, time.time()
        store.write_meta(meta)
        return store

    @classmethod
    def open(cls, root: Path) -> RunStore:
        """Open an existing run directory; one-line errors for missing or corrupt ones."""
        if not root.is_dir():
            raise RunDirError(f"run directory not found: {root}")
        if not (root / RUN_META).is_file():
            raise RunDirError(f"{root} is not an agbench run directory (no {RUN_META})")
        store = cls(root)
        meta = store.meta()
        if int(meta.get("schema", 0)) > SCHEMA_VERSION:
            raise SchemaVersionError(
                f"{root}: written by a newer agbench (schema {meta['schema']} > {SCHEMA_VERSION})"
            )
        return store

    def meta(self) -> dict[str, Any]:
        """``run.json`` as written (the raw document; :meth:`run_meta` is the typed view)."""
        try:
            data = json.loads((self.root / RUN_META).read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise RunDirError(f"{self.root / RUN_META} is unreadable: {exc}") from None
        if not isinstance(data, dict):
            raise RunDirError(f"{self.root / RUN_META} is not a JSON object")
        return data

    def run_meta(self) -> RunMeta:
        """``run.json`` as a :class:`RunMeta` (older files read with defaults)."""
        meta = RunMeta.from_dict(self.meta())
        meta.run_id = meta.run_id or self.root.name
        return meta

    @property
    def run_id(self) -> str:
        return self.run_meta().run_id

    def write_meta(self, meta: RunMeta | dict[str, Any]) -> None:
        data = meta.to_dict() if isinstance(meta, RunMeta) else meta
        tmp = self.root / (RUN_META + ".tmp")
        tmp.write_text(json.dumps(data, indent=2, default=str))
        tmp.replace(self.root / RUN_META)

    def update_meta(self, **changes: Any) -> None:
        meta = self.meta()
        meta.update(changes)
        self.write_meta(meta)

    # ---- journals --------------------------------------------------------------------------
    def attempt_path(self, key: AttemptKey) -> Path:
        return self.journal_dir / _safe(key.config.key) / _safe(key.task) / f"{key.attempt}.jsonl"

    def attempt_writer(self, key: AttemptKey, **header: Any) -> JournalWriter:
        """The journal of one attempt. Its header names the attempt field by field (what
        resume and :meth:`mark_interrupted` read back), plus ``header``'s extra entries
        (the runner adds the task's category and difficulty)."""
        writer = JournalWriter(
            self.attempt_path(key),
            {
                "kind": "attempt",
                "key": key.text,
                "config": key.config.key,
                "device": key.config.device,
                "architecture": key.config.architecture.value,
                "concurrency": key.config.concurrency,
                "task": key.task,
                "attempt": key.attempt,
                "t": time.time(),
                **header,
            },
        )
        self._writers.append(writer)
        return writer

    def sample_writer(self, name: str) -> JournalWriter:
        """A journal for run-level samples (one per monitor, so writers never share a file)."""
        writer = JournalWriter(
            self.journal_dir / "samples" / f"{_safe(name)}.jsonl", {"kind": "samples", "name": name}
        )
        self._writers.append(writer)
        return writer

    def close_writers(self) -> None:
        """Close every journal writer and every bulk part this store has open."""
        for writer in self._writers:
            writer.close()
        self._writers.clear()
        _close_parts(self._parts)

    def journals(self) -> list[JournalContents]:
        if not self.journal_dir.is_dir():
            return []
        return [read_journal(p) for p in sorted(self.journal_dir.rglob("*.jsonl"))]

    def attempt_key(self, header: dict[str, Any], run_id: str | None = None) -> AttemptKey:
        """The attempt a journal header names: its own fields (older journals: the config key)."""
        run_id = run_id if run_id is not None else self.run_id
        if "architecture" in header:
            config = Configuration(
                str(header["device"]), Architecture(header["architecture"]), int(header["concurrency"])
            )
            return AttemptKey(run_id, config, str(header["task"]), int(header["attempt"]))
        return AttemptKey.parse(run_id, f"{header['config']}|{header['task']}|{header['attempt']}")

    def attempts(self) -> dict[AttemptKey, Status | None]:
        """Every attempt journal and its final status (None: not finished)."""
        out: dict[AttemptKey, Status | None] = {}
        run_id = self.run_id
        for journal in self.journals():
            if journal.header.get("kind") != "attempt":
                continue
            rows = list(journal.iter_rows(TaskRun.TABLE))
            out[self.attempt_key(journal.header, run_id)] = Status(rows[-1]["status"]) if rows else None
        return out

    def finished_pairs(self) -> set[tuple[str, str]]:
        """(configuration key, task) pairs with a finished attempt: never to be run again."""
        return {k.pair for k, s in self.attempts().items() if s is not None and s != Status.INTERRUPTED}

    def next_attempt(self, config: Configuration | str, task: str) -> int:
        config_key = config if isinstance(config, str) else config.key
        numbers = [k.attempt for k in self.attempts() if k.pair == (config_key, task)]
        return max(numbers, default=0) + 1

    def mark_interrupted(self, reason: str = "run stopped before the attempt finished") -> list[AttemptKey]:
        """Close every unfinished attempt with an ``interrupted`` task_runs row; returns them."""
        marked: list[AttemptKey] = []
        meta = self.run_meta()
        for journal in self.journals():
            header = journal.header
            if header.get("kind") != "attempt" or list(journal.iter_rows(TaskRun.TABLE)):
                continue
            key = self.attempt_key(header, meta.run_id)
            info = header.get("task_info", {})
            t_start = float(header.get("t", 0.0))
            t_last = max(
                [
                    float(r.get("t_start", r.get("t", t_start)))
                    for rows in journal.rows.values()
                    for r in rows
                ],
                default=t_start,
            )
            record = TaskRun(
                **key.ids(),
                agent_kind=meta.agent_kind,
                category=str(info.get("category", "")),
                t_start=t_start,
                t_end=max(t_start, t_last),
                status=Status.INTERRUPTED,
                reason=reason,
            )
            with JournalWriter(journal.path, {}) as writer:
                writer.write(record)
            marked.append(key)
        return marked

    # ---- bulk columnar writes --------------------------------------------------------------
    def append_columns(self, table: str, data: pa.Table | dict[str, Any]) -> None:
        """Write a batch of rows column-wise (the fast path for simulated runs and benchmarks).

        Batches go into one Parquet part per table and store session, closed by
        ``close_writers``/``compact`` (or when the store is dropped): rows appended by a
        process that is killed before then are lost, which only bulk writers accept.
        """
        schema = arrow_schema(table)
        batch = data if isinstance(data, pa.Table) else pa.table(data)
        missing = [c for c in schema.names if c not in batch.column_names]
        for name in missing:
            batch = batch.append_column(name, pa.nulls(batch.num_rows, schema.field(name).type))
        batch = batch.select(schema.names)
        if not batch.schema.equals(schema):
            batch = batch.cast(schema)
        part = self._parts.get(table)
        if part is None:
            part_dir = self.traces_dir / "parts" / table
            part_dir.mkdir(parents=True, exist_ok=True)
            taken = [
                int(p.name.split(".", 1)[0]) for p in part_dir.iterdir() if p.name.split(".", 1)[0].isdigit()
            ]
            part = self._parts[table] = _OpenPart(
                part_dir / f"{max(taken, default=-1) + 1:06d}{PART_SUFFIX}", schema
            )
        part.write(batch)

    def append_records(self, records: list[Any]) -> None:
        """Write dataclass records in bulk (grouped by table)."""
        by_table: dict[str, list[dict[str, Any]]] = {}
        for rec in records:
            by_table.setdefault(rec.TABLE, []).append(rec.__dict__)
        for table, rows in by_table.items():
            self.append_columns(table, pa.Table.from_pylist(rows, schema=arrow_schema(table)))

    # ---- compaction and loading ------------------------------------------------------------
    def compact(self) -> None:
        """Merge journals and bulk parts into ``traces/<table>.parquet`` (idempotent)."""
        self.close_writers()
        journal_rows: dict[str, list[dict[str, Any]]] = {t: [] for t in TABLES}
        for journal in self.journals():
            for table, rows in journal.rows.items():
                if table in journal_rows:
                    journal_rows[table].extend(rows)
        self.traces_dir.mkdir(parents=True, exist_ok=True)
        # Tables are independent and Parquet encoding releases the GIL: one thread per core.
        with ThreadPoolExecutor(max_workers=max(1, min(len(TABLES), os.cpu_count() or 1))) as pool:
            for done in [pool.submit(self._compact_table, t, journal_rows[t]) for t in TABLES]:
                done.result()

    def _compact_table(self, table: str, journal_rows: list[dict[str, Any]]) -> None:
        schema = arrow_schema(table)
        part_dir = self.traces_dir / "parts" / table
        parts = sorted(part_dir.glob(f"*{PART_SUFFIX}")) if part_dir.is_dir() else []
        if part_dir.is_dir() and any(part_dir.glob(f"*{OPEN_PART_SUFFIX}")):
            log.warning("%s: skipped bulk parts left unfinished by a killed writer", part_dir)
        target = self.traces_dir / f"{table}.parquet"
        tmp = self.traces_dir / f"{table}.parquet.tmp"
        tmp.unlink(missing_ok=True)
        if not journal_rows and len(parts) == 1 and self._is_whole_part(parts[0], schema):
            # The part already is the table, encoded as a compacted table would be.
            try:
                os.link(parts[0], tmp)
            except OSError:  # no hard links on this filesystem: a byte copy still never decodes
                shutil.copyfile(parts[0], tmp)
            tmp.replace(target)
            return
        # Streamed piece by piece: memory stays at one row group, not the whole table.
        with parquet_writer(tmp, schema) as out:
            if journal_rows:
                names = schema.names
                rows = [{k: r.get(k) for k in names} for r in journal_rows]
                out.write_table(pa.Table.from_pylist(rows, schema=schema))
            for part in parts:
                source = pq.ParquetFile(part)
                for group in range(source.num_row_groups):
                    out.write_table(source.read_row_group(group).cast(schema))
            if not journal_rows and not parts:
                out.write_table(schema.empty_table())
        tmp.replace(target)

    @staticmethod
    def _is_whole_part(part: Path, schema: pa.Schema) -> bool:
        """Whether a part can stand as its table unchanged: this schema, our codec."""
        try:
            source = pq.ParquetFile(part)
        except (OSError, pa.ArrowInvalid):
            return False
        meta = source.metadata
        codecs = (
            {meta.row_group(0).column(0).compression} if meta.num_row_groups and meta.num_columns else set()
        )
        return source.schema_arrow.equals(schema) and codecs <= {PARQUET_COMPRESSION.upper()}

    def _ensure_compacted(self) -> None:
        if not all((self.traces_dir / f"{t}.parquet").is_file() for t in TABLES):
            self.compact()

    def table(self, name: str) -> pd.DataFrame:
        """One trace table as a DataFrame (compacting first if needed)."""
        if name not in TABLES:
            raise RunDirError(f"unknown trace table {name!r}")
        self._ensure_compacted()
        path = self.traces_dir / f"{name}.parquet"
        try:
            frame: pd.DataFrame = pq.read_table(path).to_pandas()
            return frame
        except (OSError, pa.ArrowInvalid) as exc:
            raise RunDirError(f"{path} is corrupt: {exc}") from None

    def tables(self) -> dict[str, pd.DataFrame]:
        return {name: self.table(name) for name in TABLES}

    def duckdb(self) -> duckdb.DuckDBPyConnection:
        """An in-memory DuckDB connection with one view per trace table (``agbench[duckdb]``)."""
        try:
            import duckdb  # optional: the one SQL convenience; the base install has no DuckDB
        except ModuleNotFoundError:
            raise AgbenchError("RunStore.duckdb() needs DuckDB: pip install 'agbench[duckdb]'") from None
        self._ensure_compacted()
        con = duckdb.connect()
        for name in TABLES:
            path = str(self.traces_dir / f"{name}.parquet").replace("'", "''")
            con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet('{path}')")
        return con


def copy_to_latest(run_dir: Path, runs_root: Path) -> Path:
    """Copy a finished run to ``runs_root/latest`` (the README's convention)."""
    latest = runs_root / "latest"
    if latest.resolve() == run_dir.resolve():
        return latest
    if latest.is_symlink() or latest.is_file():
        latest.unlink()
    elif latest.exists():
        shutil.rmtree(latest)
    shutil.copytree(run_dir, latest, ignore=shutil.ignore_patterns("journal"))
    return latest


__all__ = ["RUN_META", "AttemptKey", "RunMeta", "RunStore", "columns", "copy_to_latest"]
