"""The sweep's console: timestamped log lines, the progress bar, the closing summary table, and
the event loop run so that Ctrl-C and SIGTERM stop a sweep cleanly.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from agbench.records import TaskRun
from agbench.status import Status
from agbench.store import RunStore

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

log = logging.getLogger("agbench.live.runner")


class StoppableRun(Protocol):
    """What :func:`run_with_signals` drives (the sweep)."""

    store: RunStore
    progress: Progress | None

    async def run(self) -> None: ...


class ConsoleHandler(logging.Handler):
    """Timestamped log lines printed through the progress bar's console (both on stderr)."""

    def __init__(self, console: Console) -> None:
        super().__init__()
        self.console = console
        self.setFormatter(logging.Formatter("%(asctime)s %(levelname)-7s %(message)s", "%Y-%m-%d %H:%M:%S"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.console.print(self.format(record), markup=False, highlight=False, soft_wrap=True)
        except Exception:
            self.handleError(record)


@contextlib.contextmanager
def console_logging(quiet: bool) -> Iterator[Console]:
    from rich.console import Console

    console = Console(stderr=True)
    logger = logging.getLogger("agbench")
    handler = ConsoleHandler(console)
    old = (logger.level, logger.propagate)
    logger.addHandler(handler)
    logger.setLevel(logging.WARNING if quiet else logging.INFO)
    logger.propagate = False
    # The monitors poll the servers twice a second: httpx's per-request INFO lines would drown
    # the sweep's own log.
    chatty = {name: logging.getLogger(name).level for name in ("httpx", "httpcore")}
    for name in chatty:
        logging.getLogger(name).setLevel(logging.WARNING)
    try:
        yield console
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old[0])
        logger.propagate = old[1]
        for name, level in chatty.items():
            logging.getLogger(name).setLevel(level)


def print_summary(console: Console, results: list[TaskRun], run_dir: Path) -> None:
    from rich.table import Table

    table = Table(title=f"run {run_dir}", show_lines=False)
    for col in ("device", "arch", "C", "tasks", "success", "failures", "suite wall s"):
        table.add_column(col)
    groups: dict[tuple[str, str, int], list[TaskRun]] = {}
    for row in results:
        groups.setdefault((row.device, row.architecture, row.concurrency), []).append(row)
    for (device, arch, conc), rows in groups.items():
        counted = [r for r in rows if r.status != Status.INTERRUPTED]
        failures: dict[str, int] = {}
        for r in counted:
            if r.status != Status.SUCCESS:
                failures[r.status] = failures.get(r.status, 0) + 1
        wall = max(r.t_end for r in rows) - min(r.t_start for r in rows) if rows else 0.0
        table.add_row(
            device,
            arch,
            str(conc),
            str(len(counted)),
            str(sum(r.status == Status.SUCCESS for r in counted)),
            ", ".join(f"{k} {v}" for k, v in sorted(failures.items())) or "-",
            f"{wall:.1f}",
        )
    console.print(table)


def run_with_signals(sweep: StoppableRun, console: Console, quiet: bool) -> bool:
    """Run the sweep's event loop; Ctrl-C / SIGTERM cancel it cleanly. True if it was stopped."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    stopped = False

    async def main() -> None:
        nonlocal stopped
        loop = asyncio.get_running_loop()
        current = asyncio.current_task()
        assert current is not None

        def stop(signame: str) -> None:
            nonlocal stopped
            if not stopped:
                log.warning("%s: stopping the sweep (attempts in flight are closed as interrupted)", signame)
            stopped = True
            current.cancel()

        installed = []
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                loop.add_signal_handler(sig, stop, sig.name)
                installed.append(sig)
            except (ValueError, RuntimeError, NotImplementedError):
                pass  # not the main thread: the caller handles interruption
        try:
            await sweep.run()
        except asyncio.CancelledError:
            if not stopped:
                raise
        finally:
            for sig in installed:
                loop.remove_signal_handler(sig)

    progress = None
    if not quiet:
        progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        )
        sweep.progress = progress
    try:
        if progress is not None:
            with progress:
                asyncio.run(main())
        else:
            asyncio.run(main())
    except KeyboardInterrupt:
        stopped = True
    finally:
        sweep.store.close_writers()
    return stopped


__all__ = ["ConsoleHandler", "StoppableRun", "console_logging", "print_summary", "run_with_signals"]
