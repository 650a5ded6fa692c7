"""The append-only, crash-safe journal: one JSON line per event, flushed as written.

Each task attempt gets its own file, so concurrent attempts never interleave lines and a
killed process loses at most the line it was writing. The first line is a header naming the
schema version and the attempt; a truncated last line is dropped on reading, not fatal.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from agbench.errors import RunDirError, SchemaVersionError
from agbench.records import SCHEMA_VERSION, to_row

log = logging.getLogger(__name__)


class JournalWriter:
    """Appends records to one journal file; thread-safe, flushed per event."""

    def __init__(self, path: Path, header: dict[str, Any]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        fresh = not path.exists() or path.stat().st_size == 0
        self.path = path
        self._lock = threading.Lock()
        self._fh: IO[str] | None = path.open("a", encoding="utf-8")
        if fresh:
            self._write_line({"schema": SCHEMA_VERSION, **header})
        elif not _ends_with_newline(path):
            # The previous writer was killed mid-line: start ours on a fresh line.
            self._write_line(None)

    def _write_line(self, obj: dict[str, Any] | None) -> None:
        assert self._fh is not None, "journal already closed"
        text = "" if obj is None else json.dumps(obj, separators=(",", ":"), default=str)
        self._fh.write(text + "\n")
        self._fh.flush()

    def write(self, record: Any) -> None:
        """Append one trace record (a dataclass from ``agbench.records``)."""
        with self._lock:
            self._write_line({"table": record.TABLE, "row": to_row(record)})

    def close(self, fsync: bool = True) -> None:
        with self._lock:
            if self._fh is None:
                return
            self._fh.flush()
            if fsync:
                os.fsync(self._fh.fileno())
            self._fh.close()
            self._fh = None

    def __enter__(self) -> JournalWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as fh:
        fh.seek(-1, os.SEEK_END)
        return fh.read(1) == b"\n"


@dataclass
class JournalContents:
    """What one journal file holds, after recovery."""

    path: Path
    header: dict[str, Any]
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    dropped_lines: int = 0

    def iter_rows(self, table: str) -> Iterator[dict[str, Any]]:
        yield from self.rows.get(table, [])


def read_journal(path: Path) -> JournalContents:
    """Read a journal, dropping a truncated line where a killed writer left one."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
    except OSError as exc:
        raise RunDirError(f"cannot read journal {path}: {exc}") from None
    header: dict[str, Any] | None = None
    contents = JournalContents(path=path, header={})
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            obj = None
        if not isinstance(obj, dict):  # torn by a kill, or corrupt: dropped, never fatal
            contents.dropped_lines += 1
            log.warning("%s:%d: dropped a truncated or corrupt journal line", path, number)
            continue
        if header is None:
            if "schema" not in obj:
                raise RunDirError(f"{path}: not an agbench journal (no header line)")
            if int(obj["schema"]) > SCHEMA_VERSION:
                raise SchemaVersionError(
                    f"{path}: journal schema {obj['schema']} is newer than this agbench's "
                    f"({SCHEMA_VERSION}); upgrade agbench to read it"
                )
            header = obj
            contents.header = obj
            continue
        table = obj.get("table")
        row = obj.get("row")
        if not isinstance(table, str) or not isinstance(row, dict):
            contents.dropped_lines += 1
            continue
        contents.rows.setdefault(table, []).append(row)
    if header is None:
        raise RunDirError(f"{path}: empty journal")
    return contents
