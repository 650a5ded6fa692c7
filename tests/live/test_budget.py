"""Cloud spend and rate control: ``--max-cloud-usd`` (budget_exhausted), ``--cloud-rpm/--cloud-tpm``
shared by every agent of a run; retries with jitter honouring Retry-After, counted per attempt;
a request past ``--model-request-timeout`` is a ``timeout``.

The gate's waiting is checked with an injected clock (no real minute-long waits); the runner
paths run real sandboxes and the real proxy against a loopback upstream (``FaultUpstream``).
"""

from __future__ import annotations

import asyncio
import random
import shutil
from pathlib import Path
from typing import Any

import pytest

from agbench.config import Architecture
from agbench.live.providers import ChatClient
from agbench.live.providers.cloud_gate import BudgetExhausted, CloudGate
from agbench.live.providers.fault_upstream import FaultUpstream
from agbench.live.providers.retrying import backoff_delay
from agbench.live.runner import SweepOptions, run_sweep
from agbench.status import INVALID_FOR_VALID_SCORE, SETUP_FAILURES, Status
from agbench.store import RunStore

MESSAGES = [{"role": "user", "content": "hi"}]


class FakeClock:
    """A clock that moves only when someone sleeps on it."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def gate(**kw: Any) -> tuple[CloudGate, FakeClock]:
    clock = FakeClock()
    return CloudGate(clock=clock, sleep=clock.sleep, **kw), clock


def test_budget_stops_new_calls_once_spent() -> None:
    g, _ = gate(max_usd=0.01)

    async def go() -> None:
        await g.acquire(10)
        g.record_spend(0.004)
        await g.acquire(10)
        g.record_spend(0.007)  # the call that crosses the line is the only overshoot
        with pytest.raises(BudgetExhausted, match=r"cloud budget of \$0.01 reached"):
            await g.acquire(10)

    asyncio.run(go())
    assert g.refused == 1
    assert g.summary()["spent_usd"] == pytest.approx(0.011)


def test_budget_exhausted_is_a_setup_status_left_out_of_valid_scores() -> None:
    assert Status("budget_exhausted") in SETUP_FAILURES
    assert Status.BUDGET_EXHAUSTED in INVALID_FOR_VALID_SCORE


def test_requests_per_minute_wait_for_the_window() -> None:
    g, clock = gate(rpm=2)

    async def go() -> None:
        for _ in range(3):
            await g.acquire(1)

    asyncio.run(go())
    assert clock.sleeps == [60.0]


def test_tokens_per_minute_count_real_usage() -> None:
    g, clock = gate(tpm=100)

    async def go() -> None:
        slot = await g.acquire(40)  # estimated 40, really used 90
        CloudGate.settle(slot, 90)
        clock.now += 10
        await g.acquire(20)  # 90 + 20 > 100: waits until the first leaves the window

    asyncio.run(go())
    assert clock.sleeps == [50.0]


def test_one_gate_is_shared_by_every_client_of_a_run() -> None:
    g, clock = gate(rpm=1)

    async def go() -> list[bool]:
        with FaultUpstream() as upstream:
            a = ChatClient(upstream.url, "m", endpoint="cloud", gate=g)
            b = ChatClient(upstream.url, "m", endpoint="cloud", gate=g)
            try:
                results = [await a.chat(MESSAGES), await b.chat(MESSAGES)]
            finally:
                await a.aclose()
                await b.aclose()
            return [r.ok for r in results]

    assert asyncio.run(go()) == [True, True]
    assert clock.sleeps == [60.0]
    assert g.waited_s == 60.0


def test_backoff_has_jitter_and_honours_retry_after() -> None:
    random.seed(1)
    delays = {round(backoff_delay(1, 1.0, 30.0, None, 0.25), 6) for _ in range(20)}
    assert len(delays) > 1
    assert all(1.0 <= d <= 1.25 for d in delays)
    assert backoff_delay(1, 0.01, 30.0, 5.0, 0.25) == 5.0  # Retry-After wins over a short backoff
    assert backoff_delay(10, 1.0, 30.0, None, 0.0) == 30.0  # capped


def test_retries_are_configurable_and_counted() -> None:
    async def go(retries: int) -> tuple[str, int, int]:
        with FaultUpstream(retry_after_s=0.01) as upstream:
            upstream.inject("429", 2)
            async with ChatClient(upstream.url, "m", max_retries=retries, backoff_s=0.01) as client:
                result = await client.chat(MESSAGES)
                return result.error_class, client.retries, len(result.attempts)

    assert asyncio.run(go(0)) == ("rate_limited", 0, 1)
    assert asyncio.run(go(2)) == ("", 2, 3)


# ---- through the runner: real sandboxes, the real proxy ------------------------------------------
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")


def sweep(tmp_path: Path, upstream: FaultUpstream, **kw: Any) -> RunStore:
    settings: dict[str, Any] = {"limit": 3, **kw}
    options = SweepOptions(
        archs=[Architecture.CO], concurrency=[1], agent="model", cloud_url=upstream.url + "/v1",
        cloud_model="scripted", out=tmp_path / "run", runs_root=tmp_path / "runs", quiet=True,
        write_reports=False, **settings,
    )  # fmt: skip
    return RunStore.open(run_sweep(options))


@needs_bwrap
@pytest.mark.bwrap
def test_max_cloud_usd_cuts_off_later_attempts(tmp_path: Path) -> None:
    """Each CO attempt makes one priced cloud call; a budget below one call's cost lets the first
    attempt through and cuts the other two off as budget_exhausted."""
    with FaultUpstream() as upstream:
        store = sweep(tmp_path, upstream, max_cloud_usd=1e-9)
        sent = upstream.chat_requests
    runs = store.table("task_runs").sort_values("t_start")
    assert list(runs.status) == ["verification_failed", "budget_exhausted", "budget_exhausted"]
    assert sent == 1
    assert runs.cloud_calls.tolist() == [1, 0, 0]
    gate_meta = store.meta()["cloud_gate"]
    assert gate_meta["max_usd"] == 1e-9
    assert gate_meta["spent_usd"] > 0


@needs_bwrap
@pytest.mark.bwrap
def test_request_timeout_is_a_timeout_not_an_infrastructure_error(tmp_path: Path) -> None:
    with FaultUpstream(stall_s=30) as upstream:
        upstream.inject("stall", 10)
        store = sweep(tmp_path, upstream, model_request_timeout=1.0, limit=1)
    runs = store.table("task_runs")
    assert list(runs.status) == ["timeout"], runs.reason.tolist()
    assert "timeout" in runs.reason.iloc[0]


@needs_bwrap
@pytest.mark.bwrap
def test_retried_requests_are_counted_per_attempt(tmp_path: Path) -> None:
    with FaultUpstream(retry_after_s=0.01) as upstream:
        upstream.inject("429", 2)
        store = sweep(tmp_path, upstream, limit=1, retries=3)
    runs = store.table("task_runs")
    assert list(runs.status) == ["verification_failed"]
    assert "2 model request retries" in runs.reason.iloc[0]


def test_report_labels_say_the_budget_ran_out_and_servers_restarted() -> None:
    from agbench.metrics import labels_of

    meta = {"server_restarts": 2, "cloud_gate": {"max_usd": 0.5, "refused_calls": 3}}
    assert labels_of(meta) == ["managed server restarted 2 times", "cloud budget of $0.5 reached"]
    assert labels_of({"server_restarts": 0, "cloud_gate": {"max_usd": 0.5, "refused_calls": 0}}) == []
