"""Feeding and draining a host subprocess with a deadline, keeping what it wrote before.

``asyncio``'s ``communicate`` loses the output of a process cancelled at its timeout; a command
killed at its deadline should still show the agent what it printed, so we drain both pipes
ourselves, each capped so a runaway writer cannot exhaust the harness's memory.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

MAX_CAPTURE_BYTES = 32 * 1024 * 1024


async def _drain(stream: asyncio.StreamReader | None, sink: bytearray) -> None:
    if stream is None:
        return
    while True:
        chunk = await stream.read(65536)
        if not chunk:
            return
        room = MAX_CAPTURE_BYTES - len(sink)
        if room > 0:
            sink += chunk[:room]


async def _feed(proc: asyncio.subprocess.Process, data: bytes | None) -> None:
    if proc.stdin is None:
        return
    try:
        if data:
            proc.stdin.write(data)
            await proc.stdin.drain()
    except (BrokenPipeError, ConnectionResetError):
        pass
    finally:
        with contextlib.suppress(Exception):
            proc.stdin.close()


async def _cancel(readers: asyncio.Future[Any]) -> None:
    """Cancel the readers and collect their outcome, so asyncio never logs it as unretrieved."""
    readers.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await readers


async def communicate_with_deadline(
    proc: asyncio.subprocess.Process, stdin: bytes | None, timeout_s: float
) -> tuple[bytes, bytes, int, bool]:
    """(stdout, stderr, exit code, timed out); on timeout the process is SIGKILLed."""
    out, err = bytearray(), bytearray()
    readers = asyncio.gather(_drain(proc.stdout, out), _drain(proc.stderr, err), _feed(proc, stdin))
    timed_out = False
    try:
        await asyncio.wait_for(asyncio.shield(readers), timeout=max(timeout_s, 0.001))
    except TimeoutError:
        timed_out = True
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        try:
            await asyncio.wait_for(asyncio.shield(readers), timeout=5)
        except TimeoutError:
            await _cancel(readers)
    except asyncio.CancelledError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await _cancel(readers)
        raise
    code = await proc.wait()
    return bytes(out), bytes(err), code, timed_out
