"""One ``agbench profile-server`` session: the servers it measures, and its progress on disk.

The probes are in live/load/profile.py; this starts what they measure (the managed
llama-server, and its twin where two servers' threads do not fit on the cores), samples where
the kernel places their threads, and keeps the calls as they come back, so that a killed or
failed session leaves a profile ``--resume`` finishes (live/load/profile_progress.py).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import asdict, replace
from typing import Any

from agbench.errors import AgbenchError
from agbench.live.load.endpoint import check_llama_server, one_line_transport_errors
from agbench.live.load.probe_client import probe_client
from agbench.live.load.profile import Measured, ProfileOptions, Profiler
from agbench.live.load.profile_progress import ProfileProgress
from agbench.live.load.twin_server import TwinPlacement, needs_twin
from agbench.live.monitors.thread_placement import PlacementSampler
from agbench.live.providers.openai_compatible import ChatClient
from agbench.live.serving.llama_server import ManagedServer
from agbench.usable_cores import available_cores


async def _profile(
    options: ProfileOptions,
    url: str,
    alias: str,
    twin: ManagedServer | None,
    placement: TwinPlacement | None,
    progress: ProfileProgress,
) -> list[Measured]:
    twin_client = ChatClient(twin.url, twin.alias, max_retries=0) if twin is not None else None
    try:
        async with probe_client(url, alias) as (client, counter):
            profiler = Profiler(options, client, counter, placement, progress)
            await profiler.run_all(twin_client)
            return profiler.calls
    finally:
        if twin_client is not None:
            await twin_client.aclose()


def run_profile(options: ProfileOptions) -> tuple[list[dict[str, Any]], dict[str, Any], ProfileProgress]:
    """Measure the server (the stages ``options.out`` has not finished, with ``--resume``);
    returns every call, how they were measured, and the progress to remove once the fit
    (calibration/server_profile.py, which live never imports: the CLI joins the two) is
    written. A session that fails says how much it kept."""
    ProfileProgress.check(options.out, options.resume)
    if options.local_url is not None:
        check_llama_server(options.local_url, options.server.n_parallel)  # before OUT is made
    if options.resume:
        progress = ProfileProgress.resume(options.out, options.settings())
    else:
        progress = ProfileProgress.begin(options.out, options.settings())
    managed: ManagedServer | None = None
    twin: ManagedServer | None = None
    url, alias = options.local_url, options.model
    log = "llama-server.log" if progress.sessions == 1 else f"llama-server.{progress.sessions}.log"
    try:
        if url is None:
            managed = ManagedServer(options.server, log_path=options.out / log)
            managed.start()
            url, alias = managed.url, managed.alias
        if needs_twin(options):
            # one slot is all the twin uses; its threads are the profiled server's
            settings = replace(options.server, n_parallel=1, n_ctx=options.server.slot_ctx)
            log = log.replace("llama-server", "llama-server-twin")
            twin = ManagedServer(settings, log_path=options.out / log)
            twin.start()
        pids = [s.pid for s in (managed, twin) if s is not None and s.pid is not None]
        pair = pids if len(pids) == 2 else []  # the placement record needs both servers
        with PlacementSampler(pair) as sampler, progress:
            placement = (sampler, pair[0], pair[1]) if pair and sampler.available else None
            with one_line_transport_errors(url, "--local-url" if managed is None else "llama-server"):
                calls = asyncio.run(_profile(options, url, alias, twin, placement, progress))
    except (AgbenchError, KeyboardInterrupt) as exc:
        why = str(exc) if isinstance(exc, AgbenchError) else "interrupted"
        if not progress.done and progress.sessions == 1:  # nothing measured: nothing to resume
            progress.discard()
            raise AgbenchError(f"{why} (no probe finished; nothing kept in {options.out})") from None
        kept = f"{len(progress.done)} finished probe(s) kept" if progress.done else "no probe finished"
        raise AgbenchError(f"{why} ({kept}: finish with --resume --out {options.out})") from None
    finally:
        for server in (twin, managed):
            if server is not None:
                server.stop()
    meta = {
        "server": options.server.to_dict(),
        "managed": options.local_url is None,
        "url": options.local_url,
        "quick": options.quick,
        "cores": available_cores(),
        "boot_id": progress.boot_id,
        "wall_s": progress.total_s(),
        "sessions": progress.sessions,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    return [asdict(c) for c in calls], meta, progress


__all__ = ["run_profile"]
