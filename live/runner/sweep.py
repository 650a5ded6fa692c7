"""A live sweep: every configuration of device × architecture × concurrency over the tasks.

For each concurrency level and architecture (in that order, so the managed servers sized per
level restart only when their settings change) it runs the selected tasks in the one seeded
order, with at most C attempts at once (``workers``: one task group, so a failed or stopped
worker stops the others cleanly). A run killed at any point resumes (``--resume DIR``)
from its journal: finished (configuration, task) pairs are kept and never re-run; attempts cut
short are marked ``interrupted`` and run again as a new attempt.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import re
import shutil
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from agbench.attempt import RunScope
from agbench.config import AgentKind, Configuration
from agbench.errors import AgbenchError
from agbench.live.agents.base import Agent
from agbench.live.replay import ReplayAgent
from agbench.live.runner.attempt import AttemptRunner
from agbench.live.runner.console import console_logging, print_summary, run_with_signals
from agbench.live.runner.endpoints import EndpointManager
from agbench.live.runner.metadata import run_metadata
from agbench.live.runner.options import (
    ServerDied,
    SweepInterrupted,
    SweepOptions,
    default_device_name,
    make_agent,
    select_run_tasks,
    validate_options,
)
from agbench.live.runner.preflight import preflight
from agbench.live.runner.watchdog import ServerWatchdog
from agbench.live.runner.workers import run_in_workers
from agbench.records import TaskRun
from agbench.status import Status
from agbench.store import RunStore, copy_to_latest
from agbench.task import Task, suite_root

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

log = logging.getLogger("agbench.live.runner")


class Sweep:
    """Runs one sweep's configurations into one RunStore."""

    def __init__(
        self,
        options: SweepOptions,
        store: RunStore,
        tasks: list[Task],
        run_id: str,
        device: str,
        agent: Agent,
    ) -> None:
        self.options = options
        self.store = store
        self.tasks = tasks
        self.run_id = run_id
        self.device = device
        # A run killed with SIGKILL leaves its attempts' host folders behind: clear them first.
        prefix = "agbench-" + re.sub(r"[^A-Za-z0-9._-]+", "_", run_id) + "-"
        for stale in Path(tempfile.gettempdir()).glob(prefix + "*"):
            shutil.rmtree(stale, ignore_errors=True)
        self.sandbox_root = Path(tempfile.mkdtemp(prefix=prefix))
        self.progress: Progress | None = None
        self.progress_task: TaskID | None = None
        self.finished: set[tuple[str, str]] = set()
        self.done: Counter[tuple[str, str]] = Counter()  # finished attempts per pair (--repeat)
        self.last_attempt: dict[tuple[str, str], int] = {}
        self.results: list[TaskRun] = []
        self.attempts = AttemptRunner(
            options,
            store,
            agent,
            EndpointManager(options, store, on_call=lambda record: self.attempts.on_call(record)),
            self.sandbox_root,
            (options.tasks_root or suite_root()) / "_corpus",
            on_row=self._finished_attempt,
        )
        self.endpoints = self.attempts.endpoints
        self.watchdog: ServerWatchdog | None = None

    def configurations(self) -> list[Configuration]:
        return [
            Configuration(self.device, arch, c)
            for c in self.options.concurrency
            for arch in self.options.archs
        ]

    def pending(self, config: Configuration) -> list[Task]:
        """The attempts still to run, repeat by repeat: a pair runs until it has ``--repeat``
        finished attempts (1: a finished pair never runs again; a resume runs only the missing)."""
        repeats = max(1, self.options.repeat)
        return [t for r in range(repeats) for t in self.tasks if self.done[(config.key, t.id)] <= r]

    async def run(self) -> None:
        # Read the journals once: each pair runs at most once per sweep process, so its next
        # attempt number is known up front (re-reading every journal per attempt is quadratic).
        self.finished = self.store.finished_pairs()
        for key, status in self.store.attempts().items():
            if status is not None and status != Status.INTERRUPTED:
                self.done[key.pair] += 1
        for key in self.store.attempts():
            self.last_attempt[key.pair] = max(self.last_attempt.get(key.pair, 0), key.attempt)
        total = sum(len(self.pending(c)) for c in self.configurations())
        if self.progress is not None:
            self.progress_task = self.progress.add_task("attempts", total=total)
        try:
            for config in self.configurations():
                todo = self.pending(config)
                if not todo:
                    log.info("%s: all %d tasks already finished, skipping", config.key, len(self.tasks))
                    continue
                await self._run_configuration(config, todo)
        finally:
            await self.endpoints.stop_servers()
            await self.attempts.judging.aclose()
            shutil.rmtree(self.sandbox_root, ignore_errors=True)

    async def _run_configuration(self, config: Configuration, todo: list[Task]) -> None:
        log.info(
            "configuration %s: %d task(s), agent %s, at most %d at once",
            config.key,
            len(todo),
            self.options.agent,
            config.concurrency,
        )
        scope = RunScope(self.run_id, config)
        eps = await self.endpoints.start(config)
        try:
            monitors = self.endpoints.start_monitors(scope, eps)
        except BaseException:
            await self.endpoints.stop(eps)
            raise
        if self.endpoints.servers and self.options.watchdog:
            # Dead or hung managed servers come back with the same settings (watchdog.py).
            if self.watchdog is None:
                self.watchdog = ServerWatchdog(self.endpoints)
            self.attempts.watchdog = self.watchdog
            self.watchdog.start()
        t0 = time.monotonic()

        async def attempt(task: Task) -> None:
            pair = (config.key, task.id)
            self.last_attempt[pair] = self.last_attempt.get(pair, 0) + 1
            await self.attempts.run(scope.attempt(task.id, self.last_attempt[pair]), task, eps)

        try:
            await run_in_workers(todo, config.concurrency, attempt)
        finally:
            if self.watchdog is not None:
                await self.watchdog.stop()
            self.endpoints.stop_monitors(monitors)
            await self.endpoints.stop(eps)
        log.info("configuration %s done in %.1f s", config.key, time.monotonic() - t0)

    def _finished_attempt(self, row: TaskRun) -> None:
        self.results.append(row)
        log.info(
            "%s|%s|%d %s #%d: %s (reward %.2f, %.1f s)%s",
            row.device,
            row.architecture,
            row.concurrency,
            row.task,
            row.attempt,
            row.status,
            row.reward,
            row.wall_s,
            f" — {row.reason[:160]}" if row.status != Status.SUCCESS else "",
        )
        if self.progress is not None and self.progress_task is not None:
            self.progress.advance(self.progress_task)


# ---- entry point --------------------------------------------------------------------------------
def _options_for_resume(options: SweepOptions) -> tuple[SweepOptions, RunStore]:
    assert options.resume is not None
    store = RunStore.open(options.resume)
    stored = store.run_meta().options
    if not stored:
        raise AgbenchError(
            f"{options.resume} has no sweep options in run.json: it was not made by `agbench sweep`"
        )
    restored = SweepOptions.from_dict(stored)
    restored.resume = options.resume
    restored.out = options.resume
    restored.quiet = options.quiet
    # URLs were stored redacted (a key in a query string is never written): a URL given to
    # this invocation wins.
    restored.local_url = options.local_url or restored.local_url
    restored.cloud_url = options.cloud_url or restored.cloud_url
    return restored, store


def _recorded_order(options: SweepOptions, store: RunStore) -> list[Task]:
    """A resumed sweep runs the tasks its run.json recorded, in that order: the selection rule
    (or the suite) of the agbench resuming it may give another order or, with ``--limit``,
    other tasks, and a sweep half in one order and half in another is two sweeps."""
    recorded = store.run_meta().task_order
    if not recorded:  # a run.json from before task_order was written
        return select_run_tasks(options)
    by_id = {t.id: t for t in select_run_tasks(dataclasses.replace(options, limit=None))}
    gone = [t for t in recorded if t not in by_id]
    if gone:
        raise AgbenchError(f"{store.root}: task(s) {', '.join(gone)} of this run are no longer in the suite")
    return [by_id[t] for t in recorded]


def _new_run_dir(options: SweepOptions) -> Path:
    if options.out is not None:
        return options.out
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    path = options.runs_root / stamp
    n = 1
    while path.exists():
        n += 1
        path = options.runs_root / f"{stamp}-{n}"
    return path


def run_sweep(options: SweepOptions) -> Path:
    """Run (or resume) a sweep; returns the run directory. One-line AgbenchError on bad input."""
    store: RunStore | None = None
    if options.resume is not None:
        options, store = _options_for_resume(options)
        marked = store.mark_interrupted("the run stopped before the attempt finished (resumed later)")
        run_dir = store.root
    else:
        marked = []
    validate_options(options)
    agent = make_agent(options)  # a missing trajectory file fails here, before a run dir exists
    tasks = select_run_tasks(options) if store is None else _recorded_order(options, store)
    if not tasks:
        raise AgbenchError("no task selected")
    if options.agent_kind is AgentKind.REPLAY:  # every (task, architecture) needs its trajectory
        assert isinstance(agent, ReplayAgent)
        agent.check([t.id for t in tasks], options.archs)
    device = options.device or default_device_name()
    if options.preflight:  # one-line errors (exit 2) before any task starts or a run dir exists
        preflight(options, tasks, store.root if store is not None else _new_run_dir(options))
    if store is None:
        run_dir = _new_run_dir(options)
        run_id = run_dir.name if options.out is None else f"{run_dir.name}-{uuid.uuid4().hex[:6]}"
        store = RunStore.create(run_dir, run_metadata(options, run_id, device, tasks))
        (run_dir / "raw_responses.jsonl").touch()  # every live run has one, even without model calls
        if options.trajectories is not None:
            # The run keeps the decisions it replayed, so the simulator can replay them too.
            shutil.copyfile(options.trajectories, run_dir / "trajectories.jsonl")
    meta = store.run_meta()
    run_id = meta.run_id
    device = meta.device or device
    with console_logging(options.quiet) as console:
        if options.resume is not None:
            log.info(
                "resuming %s: %d interrupted attempt(s) marked, %d pair(s) finished",
                run_dir,
                len(marked),
                len(store.finished_pairs()),
            )
        log.info(
            "run %s: %d task(s) × %d configuration(s), agent %s, backend %s%s",
            run_dir,
            len(tasks),
            len(options.archs) * len(options.concurrency),
            options.agent,
            options.backend,
            " (cloud stand-in)" if meta.cloud_standin else "",
        )
        sweep = Sweep(options, store, tasks, run_id, device, agent)
        failure: ServerDied | None = None
        try:
            stopped = run_with_signals(sweep, console, options.quiet)
        except ServerDied as exc:
            stopped, failure = True, exc
            log.error("%s", exc)
        store.update_meta(finished=None if stopped else time.time(), stopped=stopped)
        if sweep.attempts.gate.active:
            store.update_meta(cloud_gate=sweep.attempts.gate.summary())
        store.compact()
        if options.write_reports:
            try:
                # lazy: matplotlib loads only when a report is written
                from agbench.report import write_reports

                write_reports([run_dir])
            except Exception as exc:  # the traces are safe; a report can be rewritten later
                log.error(
                    "no report written (%s: %s); rerun `agbench report %s`", type(exc).__name__, exc, run_dir
                )
        if not stopped:
            with contextlib.suppress(OSError):
                copy_to_latest(run_dir, options.runs_root)
        print_summary(console, sweep.results, run_dir)
    if failure is not None:
        raise failure
    if stopped:
        raise SweepInterrupted(f"sweep stopped; continue it with: agbench sweep --resume {run_dir}")
    return run_dir


__all__ = ["Sweep", "run_sweep"]
