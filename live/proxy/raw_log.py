"""``raw_responses.jsonl``: every proxied chat call's request and answer, secrets removed.

The trace tables keep measurements; this log keeps what was said, for diagnosing a run (what
did the agent send, what exactly came back when a call failed). Redaction happens in the
writer's thread, so a key that slipped into a body or header never reaches the file and the
event loop relaying the next request does not pay for it.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agbench.live.proxy.call_record import CallRecord
from agbench.live.secrets import Redactor


def raw_log_line(record: CallRecord, request_headers: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """The (not yet redacted) log line of one call."""
    r = record.result
    key = record.key
    line: dict[str, Any] = {
        "t": r.t_start,
        "call_id": record.call_id,
        "run_id": key.run_id,
        "task": key.task,
        "attempt": key.attempt,
        "agent": record.agent,
        "upstream": record.upstream,
        "endpoint": record.endpoint,
        "request": {"headers": dict(request_headers), "body": r.request_body},
        "response": {"status": r.status_code, "error_class": r.error_class, "body": r.response_body},
    }
    if r.error_class:
        # The stream as received, for diagnosis. A good answer is kept assembled only: its
        # SSE form is ~200 bytes a token and says nothing more.
        line["response"]["raw"] = r.raw_response
    return line


class RawLogWriter:
    """Appends redacted JSON lines to a file from a thread of its own.

    Redacting and encoding a call's bodies takes a fraction of a millisecond, and a flush can
    block on a slow disk: neither should delay the next request the event loop relays. Each
    line is flushed as written, so a killed run keeps every call answered before it.
    """

    def __init__(self, path: Path, redactor: Redactor) -> None:
        self.path = path
        self.redactor = redactor
        self._queue: queue.SimpleQueue[dict[str, Any] | None] = queue.SimpleQueue()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file = path.open("a", encoding="utf-8")
        self._thread = threading.Thread(target=self._run, name="agbench-raw-log", daemon=True)
        self._thread.start()

    def put(self, line: dict[str, Any]) -> None:
        self._queue.put(line)

    def _run(self) -> None:
        while (line := self._queue.get()) is not None:
            self._file.write(json.dumps(self.redactor.data(line), ensure_ascii=False) + "\n")
            self._file.flush()

    def close(self) -> None:
        """Write what is queued, then close the file."""
        self._queue.put(None)
        self._thread.join()
        self._file.close()
