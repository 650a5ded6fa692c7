"""A configuration's attempts, run by at most C workers at once, as one structured task group.

The workers share one queue of items and live inside an :class:`asyncio.TaskGroup`, so none
outlives the configuration: when one worker fails (a managed server died under its attempt,
or a bug), the group cancels the others, each of which closes its attempt as ``interrupted``
in the journal before it ends (``AttemptRunner.run``), and only then does the failure reach
the sweep; a stop (Ctrl-C, SIGTERM: the sweep's task is cancelled) reaches every worker the
same way. Either way every attempt that started has its ``task_runs`` row when this returns,
so a resumed sweep re-runs the interrupted ones and nothing that finished.

The sweep sees the worker's own exception (``ServerDied`` is a one-line error to the user),
not the group that carries it; a second worker that failed at the same moment is logged.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

log = logging.getLogger("agbench.live.runner")

T = TypeVar("T")


async def run_in_workers(items: Sequence[T], workers: int, run: Callable[[T], Awaitable[None]]) -> None:
    """``run`` each item, in order of the sequence, at most ``workers`` at once."""
    queue: asyncio.Queue[T] = asyncio.Queue()
    for item in items:
        queue.put_nowait(item)

    async def worker() -> None:
        while True:
            try:
                item = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            await run(item)

    try:
        async with asyncio.TaskGroup() as group:
            for n in range(min(workers, len(items))):
                group.create_task(worker(), name=f"sweep worker {n}")
    except BaseExceptionGroup as failures:
        first, *others = _leaves(failures)
        for other in others:
            log.error("another worker failed at the same time: %s: %s", type(other).__name__, other)
        raise first from None


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    leaves: list[BaseException] = []
    for exc in group.exceptions:
        leaves.extend(_leaves(exc) if isinstance(exc, BaseExceptionGroup) else [exc])
    return leaves


__all__ = ["run_in_workers"]
