"""``agbench load``: an open-loop load run against a managed llama-server or any OpenAI URL.

One run directory holds every level of the run (one rate, one Poisson rate or one replayed
trace per level); a level is one journalled attempt of the pseudo-task ``load@<level>`` (see
``agbench/load.py``), so a killed load run resumes with ``--resume DIR`` without re-sending
finished levels, and the report, calibration and validation read its ``model_calls`` and
``server_samples`` like any other run's.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agbench.attempt import AttemptKey, RunScope
from agbench.config import ServerSettings
from agbench.errors import AgbenchError
from agbench.live.load.endpoint import check_reachable, one_line_transport_errors
from agbench.live.load.level import level_status, run_level
from agbench.live.monitors.inventory import probe
from agbench.live.monitors.resource_sampler import ResourceSampler
from agbench.live.monitors.server_sampler import ServerSampler
from agbench.live.providers.openai_compatible import ChatClient
from agbench.live.serving.llama_server import ManagedServer
from agbench.live.trajectories.sizing import CounterCache
from agbench.load import LoadLevel, level_from_dict, level_to_dict, load_configuration
from agbench.run_meta import LocalServers, RunMeta, RunSource
from agbench.store import RunStore, copy_to_latest

#: Hard bound per level unless the user says otherwise: a load run always stops by itself.
DEFAULT_MAX_LEVEL_S = 600.0


@dataclass
class LoadOptions:
    """What ``agbench load`` was asked to do (kept in run.json for ``--resume``)."""

    levels: list[LoadLevel]
    out: Path
    device: str = "this-machine"
    local_url: str | None = None  # None: start a managed llama-server with ``server``
    model: str = "smollm2-135m"
    server: ServerSettings = field(default_factory=ServerSettings)
    api_key_env: str | None = None
    max_level_s: float = DEFAULT_MAX_LEVEL_S
    seed: int = 0
    quiet: bool = False

    def to_options(self) -> dict[str, Any]:
        return {
            "levels": [level_to_dict(level) for level in self.levels],
            "local_url": self.local_url,
            "model": self.model,
            "max_level_s": self.max_level_s,
            "api_key_env": self.api_key_env,
        }


def _say(options: LoadOptions, text: str) -> None:
    if not options.quiet:
        print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)


def _api_key(options: LoadOptions) -> str | None:
    if not options.api_key_env:
        return None
    key = os.environ.get(options.api_key_env)
    if not key:
        raise AgbenchError(f"${options.api_key_env} is not set (named by --api-key-env)")
    return key


def _open_store(options: LoadOptions, resume: bool) -> RunStore:
    if resume:
        store = RunStore.open(options.out)
        saved = store.run_meta()
        if saved.source is not RunSource.LOAD:
            raise AgbenchError(f"{options.out} is not a load run (source {saved.source.value})")
        options.levels = [level_from_dict(d) for d in saved.options.get("levels", [])]
        store.mark_interrupted("load run stopped before the level finished")
        return store
    meta = RunMeta(
        run_id=options.out.name,
        source=RunSource.LOAD,
        device=options.device,
        agent_kind="load",
        seed=options.seed,
        architectures=["LO"],
        concurrency=[0],
        task_order=[level.task for level in options.levels],
        local=LocalServers(
            url=options.local_url,
            managed=options.local_url is None,
            model=options.model,
            servers={"0": options.server} if options.local_url is None else {},
        ),
        options=options.to_options(),
        hardware={options.device: probe()},
    )
    return RunStore.create(options.out, meta)


async def _run_levels(options: LoadOptions, store: RunStore, url: str, managed: ManagedServer | None) -> None:
    config = load_configuration(options.device)
    scope = RunScope(store.run_id, config)
    done = store.finished_pairs()
    sample_journal = store.sample_writer("server")
    sampler = ServerSampler(
        url,
        sample_journal.write,
        0.5,
        scope=scope,
        kv_total=options.server.n_ctx if managed else None,
        unified_kv=options.server.kv_unified if managed else False,
    )
    # Machine load while the server was measured: calibration fits rates only on quiet calls.
    resources = ResourceSampler(store.sample_writer("resources").write, 0.5, scope=scope)
    counters = CounterCache()
    client = ChatClient(
        url, managed.alias if managed else options.model, api_key=_api_key(options), max_retries=0
    )
    try:
        counter = await counters.counter(url)
        sampler.start()
        resources.start()
        for level in options.levels:
            if (config.key, level.task) in done:
                _say(options, f"{level.name}: already finished, skipped")
                continue
            key = AttemptKey(store.run_id, config, level.task, store.next_attempt(config, level.task))
            _say(options, f"{level.name}: {len(level.requests)} requests at {level.offered_rate:.3g}/s")
            with store.attempt_writer(key, category="load", difficulty="") as journal:
                t_start = time.time()
                result, tally = await run_level(
                    level, key, client, counter, journal.write, max_duration_s=options.max_level_s
                )
                journal.write(
                    tally.task_run(
                        key,
                        agent_kind="load",
                        category="load",
                        difficulty="",
                        t_start=t_start,
                        t_end=time.time(),
                        status=level_status(result),
                        reason=f"{result.ok} ok, {result.errors} errors, {result.cancelled} cancelled",
                    )
                )
            _say(options, f"{level.name}: {result.ok}/{result.sent} ok in {result.wall_s:.1f} s")
    finally:
        sampler.stop()
        resources.stop()
        await client.aclose()
        await counters.aclose()


def run_load(options: LoadOptions, *, resume: bool = False) -> Path:
    """Run (or resume) a load run; returns its directory with the report written."""
    if options.local_url is not None:
        check_reachable(options.local_url)  # before the run directory is made
    store = _open_store(options, resume)
    managed: ManagedServer | None = None
    url = options.local_url
    try:
        if url is None:
            managed = ManagedServer(options.server, log_path=store.root / "llama-server.log")
            _say(options, f"starting llama-server ({options.server.model}, ctx {options.server.n_ctx})")
            managed.start()
            url = managed.url
        with one_line_transport_errors(url, "--local-url" if managed is None else "llama-server"):
            asyncio.run(_run_levels(options, store, url, managed))
    finally:
        if managed is not None:
            managed.stop()
        store.close_writers()
    store.update_meta(finished=time.time())
    store.compact()
    from agbench.report.load import write_load_report  # lazy: matplotlib, only for the report

    write_load_report(store.root)
    copy_to_latest(store.root, store.root.parent)
    return store.root
