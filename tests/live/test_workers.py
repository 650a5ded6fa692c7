"""The sweep's worker pool (live/runner/workers.py): at most C at once, and when one worker
fails or the sweep is stopped, every other one is cancelled and has closed its item before the
failure (its own exception, not a group) or the cancellation reaches the sweep."""

from __future__ import annotations

import asyncio
import logging

import pytest

from agbench.live.runner.workers import run_in_workers


class Journal:
    """What the workers did, as an attempt's journal would say it: started, then one ending."""

    def __init__(self) -> None:
        self.started: list[int] = []
        self.ended: dict[int, str] = {}
        self.running = 0
        self.peak = 0

    async def run(
        self, item: int, *, fail: dict[int, BaseException] | None = None, hold_s: float = 0.01
    ) -> None:
        self.started.append(item)
        self.running += 1
        self.peak = max(self.peak, self.running)
        try:
            await asyncio.sleep(hold_s if item not in (fail or {}) else 0.02)
            if fail and item in fail:
                raise fail[item]
            self.ended[item] = "finished"
        except asyncio.CancelledError:
            await asyncio.sleep(0.01)  # closing the attempt takes a moment (the journal row)
            self.ended[item] = "interrupted"
            raise
        finally:
            self.running -= 1


def test_every_item_runs_in_order_at_most_c_at_once() -> None:
    journal = Journal()
    asyncio.run(run_in_workers(list(range(10)), 3, journal.run))
    assert journal.started == list(range(10))
    assert journal.ended == dict.fromkeys(range(10), "finished")
    assert journal.peak == 3
    asyncio.run(run_in_workers([], 4, journal.run))  # nothing to do: no worker, no error


def test_one_failure_cancels_the_others_and_reaches_the_caller_as_itself() -> None:
    journal = Journal()

    async def run(item: int) -> None:
        await journal.run(item, fail={1: RuntimeError("server died")}, hold_s=10.0)

    with pytest.raises(RuntimeError, match="server died"):
        asyncio.run(run_in_workers(list(range(8)), 3, run))
    assert journal.started == [0, 1, 2]  # nothing started after the failure
    assert journal.ended == {0: "interrupted", 2: "interrupted"}  # each closed before the error came out
    assert journal.running == 0


def test_a_stop_cancels_every_worker_and_each_closes_its_item_first() -> None:
    journal = Journal()

    async def sweep() -> None:
        pool = asyncio.create_task(run_in_workers(list(range(6)), 2, lambda i: journal.run(i, hold_s=10.0)))
        await asyncio.sleep(0.05)
        pool.cancel()  # what SIGINT/SIGTERM do to the sweep's task
        with pytest.raises(asyncio.CancelledError):
            await pool
        assert journal.running == 0

    asyncio.run(sweep())
    assert journal.ended == {0: "interrupted", 1: "interrupted"}


def test_failures_at_the_same_moment_raise_the_first_and_log_the_rest(
    caplog: pytest.LogCaptureFixture,
) -> None:
    journal = Journal()
    fail: dict[int, BaseException] = {0: ValueError("first"), 1: KeyError("second")}
    with (
        caplog.at_level(logging.ERROR, logger="agbench.live.runner"),
        pytest.raises(ValueError, match="first"),
    ):
        asyncio.run(run_in_workers([0, 1], 2, lambda i: journal.run(i, fail=fail)))
    assert "another worker failed at the same time: KeyError" in caplog.text
