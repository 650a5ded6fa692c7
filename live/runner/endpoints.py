"""One configuration's model endpoints: managed servers, the recording proxy and the monitors.

The managed llama-servers are sized per concurrency level (slots = C by default) and restarted
only when their settings change, so the architectures of one level share a running server as
one long-lived server on a device would. With no cloud URL, a second managed server stands in
for the cloud. Every model request of every agent goes through the configuration's
:class:`~agbench.live.proxy.RecordingProxy`; the server and resource monitors sample the
configuration while it runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agbench.attempt import Endpoint, RunScope
from agbench.config import CloudSettings, Configuration, ServerSettings
from agbench.errors import AgbenchError
from agbench.live.architectures import plan_for
from agbench.live.mock.provider import MOCK_PROVIDER_MODEL, MockProvider
from agbench.live.monitors import PlacementSampler, ResourceSampler, ServerSampler
from agbench.live.proxy import RecordingProxy, Upstream
from agbench.live.runner.options import (
    CLOUD_STANDIN_ALIAS,
    SweepOptions,
    local_server_settings,
    select_run_tasks,
    standin_server_settings,
)
from agbench.live.serving import ManagedServer
from agbench.store import RunStore
from agbench.usable_cores import available_cores

if TYPE_CHECKING:
    from agbench.live.monitors.sampler_thread import Sampler
    from agbench.live.proxy import CallRecord

log = logging.getLogger("agbench.live.runner")

#: The managed server that stands in for the cloud (also its name in server samples).
STANDIN_SERVER = "cloud-standin"


@dataclass
class Endpoints:
    """One configuration's model endpoints: base URLs (direct) and the model names to ask for."""

    direct: dict[Endpoint, str] = field(default_factory=dict)  # upstream base URL
    models: dict[Endpoint, str] = field(default_factory=dict)
    api_keys: dict[Endpoint, str | None] = field(default_factory=dict)
    settings: dict[Endpoint, ServerSettings] = field(default_factory=dict)  # managed servers' settings
    proxy: RecordingProxy | None = None
    text_tools: set[Endpoint] = field(default_factory=set)  # endpoints whose template drops `tools`


def template_drops_tools(base_url: str) -> bool:
    """True when a llama.cpp server's chat template ignores ``tools`` (``/props`` says so).

    Other servers (vLLM, Ollama, cloud APIs) have no ``/props``: their tool support is assumed.
    """
    import httpx

    try:
        response = httpx.get(base_url.rstrip("/").removesuffix("/v1") + "/props", timeout=5, trust_env=False)
        caps = response.json().get("chat_template_caps") if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError, AttributeError):
        return False
    return isinstance(caps, dict) and caps.get("supports_tools") is False


def threads_unpinned_beyond_cores(servers: list[ServerSettings], cores: int) -> bool:
    """Whether these managed servers, run at once, need more compute threads than ``cores``
    with some of them left to the kernel's placement: it then at times stacks a server's
    threads on one core, and that server nearly stops (docs/design.md, "Where the threads
    run")."""
    return sum(s.threads for s in servers) > cores and not all(s.cpu_strict for s in servers)


class EndpointManager:
    """Starts and stops each configuration's endpoints; keeps the managed servers between them."""

    def __init__(self, options: SweepOptions, store: RunStore, on_call: Callable[[CallRecord], None]) -> None:
        self.options = options
        self.store = store
        self.on_call = on_call
        self.servers: dict[str, tuple[ServerSettings, ManagedServer]] = {}
        self.mock: MockProvider | None = None  # --provider mock: one offline provider per sweep
        self._warned_placement = False

    # -- servers ---------------------------------------------------------------------------
    async def server(
        self, name: str, settings: ServerSettings, alias: str, config: Configuration
    ) -> ManagedServer:
        """The managed server ``name`` with exactly ``settings``, (re)started only when they change."""

        current = self.servers.get(name)
        if current is not None and current[0] == settings and current[1].alive():
            return current[1]
        if current is not None:
            await asyncio.to_thread(current[1].stop)
            del self.servers[name]
        server = ManagedServer(settings, alias=alias, log_path=self.server_log(name, config))
        self.servers[name] = (settings, server)
        await asyncio.to_thread(server.start)
        running = [s for s, _ in self.servers.values()]
        # the cores are counted only while the warning may still be due (two servers, not yet warned)
        cores = available_cores() if len(running) > 1 and not self._warned_placement else 0
        if cores and threads_unpinned_beyond_cores(running, cores):
            self._warned_placement = True
            log.warning(
                "the managed servers need %d threads on %d cores, placed by the kernel: where it "
                "stacks one server's threads on one core that server nearly stops, and how often "
                "moves between runs; --local-cpu-strict pins them (docs/design.md, 'Where the threads run')",
                sum(s.threads for s in running), cores,
            )  # fmt: skip
        log.info(
            "%s server %s at %s: %d slot(s), ctx %d%s, %d thread(s)",
            name, settings.model, server.url, settings.n_parallel, settings.n_ctx,
            " unified" if settings.kv_unified else "", settings.threads,
        )  # fmt: skip
        return server

    def server_log(self, name: str, config: Configuration) -> Path:
        """llama-server's own log, kept in the run directory (one per server start)."""
        return self.store.root / "logs" / f"{name}-C{config.concurrency}.log"

    async def mock_provider(self) -> MockProvider:
        """``--provider mock``: the offline provider answering from the tasks' oracle plans."""

        if self.mock is None:
            tasks = select_run_tasks(self.options)
            mock = MockProvider(tasks, wrong_rate=self.options.mock_wrong_rate, seed=self.options.seed)
            await mock.start()
            log.info("mock provider at %s (wrong-answer rate %g)", mock.url, mock.wrong_rate)
            self.mock = mock
        return self.mock

    async def stop_servers(self) -> None:
        if self.mock is not None:
            with contextlib.suppress(Exception):
                await self.mock.stop()
            self.mock = None
        for _settings, server in self.servers.values():
            with contextlib.suppress(Exception):
                await asyncio.to_thread(server.stop)
        self.servers.clear()

    def dead_server(self) -> str | None:
        """What died, if one of the managed servers is no longer running."""
        for name, (_settings, server) in self.servers.items():
            try:
                server.check()
            except AgbenchError as exc:
                return f"{name} server died: {exc}"
        return None

    # -- endpoints -------------------------------------------------------------------------
    async def start(self, config: Configuration) -> Endpoints:
        eps = Endpoints()
        options = self.options
        if not options.needs_models:
            return eps
        plan = plan_for(config.architecture)
        try:
            if Endpoint.LOCAL in plan.endpoints:
                eps.models[Endpoint.LOCAL] = options.local_model
                key_env = options.local_api_key_env
                eps.api_keys[Endpoint.LOCAL] = (os.environ.get(key_env) or None) if key_env else None
                if options.provider == "mock":
                    eps.direct[Endpoint.LOCAL] = (await self.mock_provider()).url
                    eps.models[Endpoint.LOCAL] = MOCK_PROVIDER_MODEL
                elif options.local_url:
                    eps.direct[Endpoint.LOCAL] = options.local_url.rstrip("/")
                else:
                    settings = local_server_settings(options, config.concurrency)
                    server = await self.server(Endpoint.LOCAL.value, settings, options.local_model, config)
                    eps.settings[Endpoint.LOCAL] = settings
                    eps.direct[Endpoint.LOCAL] = server.url
            if Endpoint.CLOUD in plan.endpoints:
                if options.provider == "mock":
                    eps.direct[Endpoint.CLOUD] = (await self.mock_provider()).url
                    eps.models[Endpoint.CLOUD] = MOCK_PROVIDER_MODEL
                    eps.api_keys[Endpoint.CLOUD] = None
                elif options.cloud_url:
                    eps.direct[Endpoint.CLOUD] = options.cloud_url.rstrip("/")
                    eps.models[Endpoint.CLOUD] = options.cloud_model or CloudSettings().model
                    eps.api_keys[Endpoint.CLOUD] = os.environ.get(options.cloud_api_key_env) or None
                else:
                    settings = standin_server_settings(options, config.concurrency)
                    server = await self.server(STANDIN_SERVER, settings, CLOUD_STANDIN_ALIAS, config)
                    eps.settings[Endpoint.CLOUD] = settings
                    eps.direct[Endpoint.CLOUD] = server.url
                    eps.models[Endpoint.CLOUD] = CLOUD_STANDIN_ALIAS
                    eps.api_keys[Endpoint.CLOUD] = None
            for endpoint, url in eps.direct.items():
                if await asyncio.to_thread(template_drops_tools, url):
                    eps.text_tools.add(endpoint)
                    recorded = set(self.store.run_meta().tools_in_prompt)
                    if endpoint not in recorded:  # run.json says whose tools went into the prompt
                        self.store.update_meta(tools_in_prompt=sorted(recorded | {endpoint.value}))
            if eps.text_tools:
                log.info("no tool support in the chat template of %s: tools described in the prompt",
                         ", ".join(sorted(eps.text_tools)))  # fmt: skip
            await self._start_proxy(eps)
        except BaseException:
            await self.stop(eps)
            raise
        return eps

    async def stop(self, eps: Endpoints) -> None:
        """The configuration's proxy; its servers stay up for the next configuration."""
        if eps.proxy is not None:
            with contextlib.suppress(Exception):
                await eps.proxy.stop()
            eps.proxy = None

    async def _start_proxy(self, eps: Endpoints) -> None:
        """The configuration's recording proxy: every model request of every agent goes through it."""

        upstreams = {
            endpoint.value: Upstream(
                base_url=url,
                endpoint=endpoint,
                api_key=eps.api_keys.get(endpoint),
                prices=self.options.prices if endpoint is Endpoint.CLOUD else None,
                timeout_s=self.options.model_request_timeout,
            )
            for endpoint, url in eps.direct.items()
        }
        from agbench.live.runner.options import guard_settings_of

        proxy = RecordingProxy(
            upstreams,
            self.store.root / "raw_responses.jsonl",
            on_call=self.on_call,
            privacy_guard=guard_settings_of(self.options),  # --privacy-guard: None when off
        )
        await proxy.start()
        eps.proxy = proxy

    # -- monitors --------------------------------------------------------------------------
    def start_monitors(self, scope: RunScope, eps: Endpoints) -> list[Sampler]:
        """Resource sampler and one server sampler per managed server, for the configuration;
        where a managed server computes on several threads, where they run (``threads_stacked``)."""

        started: list[Sampler] = []
        safe = re.sub(r"[^A-Za-z0-9._=-]+", "_", scope.config.key)
        interval = self.options.sample_interval_s
        pids = {
            name: server.pid
            for name, (settings, server) in self.servers.items()
            if settings.threads > 1 and server.pid is not None
        }
        try:
            resource = ResourceSampler(
                self.store.sample_writer(f"resources-{safe}").write, interval, scope=scope
            )
            resource.start()
            started.append(resource)
            placement = PlacementSampler(list(pids.values()))
            placement.start()
            started.append(placement)
            for endpoint, url in eps.direct.items():
                if self.options.provider == "mock":  # the mock provider has no /metrics to sample
                    continue
                if endpoint is Endpoint.CLOUD and Endpoint.CLOUD not in eps.settings:
                    continue  # a real cloud API has no /metrics to sample
                name = Endpoint.LOCAL.value if endpoint is Endpoint.LOCAL else STANDIN_SERVER
                settings = eps.settings.get(endpoint)
                pid = pids.get(name)
                sampler = ServerSampler(
                    url,
                    self.store.sample_writer(f"server-{name}-{safe}").write,
                    interval,
                    server=name,
                    kv_total=settings.n_ctx if settings else None,
                    unified_kv=bool(settings and settings.kv_unified),
                    scope=scope,
                    placement=(placement, pid) if pid is not None and placement.available else None,
                )
                sampler.start()
                started.append(sampler)
        except BaseException:
            self.stop_monitors(started)
            raise
        return started

    @staticmethod
    def stop_monitors(started: list[Sampler]) -> None:
        for monitor in started:
            with contextlib.suppress(Exception):
                monitor.stop()


__all__ = [
    "STANDIN_SERVER",
    "EndpointManager",
    "Endpoints",
    "template_drops_tools",
    "threads_unpinned_beyond_cores",
]
