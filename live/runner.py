"""Live sweeps: run the task suite under every configuration of device × architecture × C.

``run_sweep(SweepOptions)`` is what ``agbench run`` and ``agbench sweep`` call. For each
concurrency level and architecture (in that order: the managed servers are sized per level,
slots = C by default, and restarted only when their settings change) it runs the selected
tasks, in one seeded order shared by every configuration, with at most C attempts at once. Each attempt gets a fresh sandbox, its agent
(model, replay, oracle or null) under the configuration's architecture, then the verifier;
its status, reward and time breakdown go into the run's journal as a ``task_runs`` row.

Model requests go through the recording proxy (raw bodies with secrets removed, exposure of
sensitive items in cloud-bound payloads); the server and resource monitors sample every
configuration while it runs. With no cloud URL, a second managed server stands in for the
cloud and run.json says so (``cloud_standin``, ``labels``), so every report does too. A managed
server that dies stops the sweep (its broken attempts kept as interrupted) instead of
recording a string of failures that are not the agents'. A run killed at any point resumes (``--resume DIR``) from its journal: finished
(configuration, task) pairs are kept and never re-run; attempts cut short are marked
``interrupted`` and run again as a new attempt. Ctrl-C and SIGTERM stop cleanly: attempts in
flight are closed as interrupted, sandboxes destroyed, servers stopped, journals flushed.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import platform
import re
import shutil
import signal
import socket
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agbench.attempt import AttemptKey, RunScope
from agbench.config import AgentKind, Architecture, CloudSettings, Configuration, PriceTable, ServerSettings
from agbench.errors import AgbenchError
from agbench.live.agents.base import Agent, AgentContext, AgentOutcome, AttemptRecorder, ChatBackend
from agbench.live.agents.model_agent import DEFAULT_MAX_TOKENS
from agbench.live.architectures import plan_for, prompt_texts
from agbench.records import TaskRun
from agbench.status import Status
from agbench.store import RunStore, copy_to_latest
from agbench.task import Task, load_suite, select_tasks, suite_root

log = logging.getLogger("agbench.live.runner")

AGENT_NAMES = tuple(k.value for k in AgentKind)
#: Total KV tokens per slot of the managed local server when ``--local-ctx`` is not given.
DEFAULT_CTX_PER_SLOT = 4096
CLOUD_STANDIN_ALIAS = "cloud-standin"
#: The longest one model request may take before it counts as a ``timeout`` error.
MAX_REQUEST_S = 600.0


class SweepInterrupted(AgbenchError):
    """The sweep was stopped (Ctrl-C / SIGTERM) before it finished; it can be resumed."""


class ServerDied(AgbenchError):
    """A managed model server died mid-sweep; the attempts it broke are kept as interrupted."""


@dataclass
class SweepOptions:
    """Every option of ``agbench run`` / ``agbench sweep`` (DESIGN.md command-line contract)."""

    archs: list[Architecture] = field(default_factory=lambda: [Architecture.LO])
    concurrency: list[int] = field(default_factory=lambda: [1])
    limit: int | None = None
    task_ids: list[str] = field(default_factory=list)
    local_url: str | None = None
    local_model: str = "smollm2-135m"
    cloud_url: str | None = None
    cloud_model: str | None = None
    local_ctx: int | None = None  # total KV tokens; default DEFAULT_CTX_PER_SLOT per slot
    local_parallel: int | None = None  # slots; default: the configuration's concurrency
    local_kv_unified: bool = False
    local_threads: int | None = None
    agent: str = "model"
    trajectories: Path | None = None
    backend: str = "bwrap"
    time_limit: float | None = None  # per-task deadline; default the task's own (7,200 s)
    tool_call_parser: str = "auto"
    max_tokens: int | None = None
    device: str | None = None  # default: from the host name
    seed: int = 0
    out: Path | None = None  # the run directory itself
    resume: Path | None = None
    quiet: bool = False
    # Not on the command line (library and test use):
    compaction: str = "none"  # the model agent's context policy ("none" | "drop-old-tool-output")
    cloud_api_key_env: str = "AGBENCH_CLOUD_API_KEY"
    prices: PriceTable = field(default_factory=PriceTable)
    runs_root: Path = Path("runs")  # where runs/<timestamp>/ and runs/latest/ live
    tasks_root: Path | None = None  # default: the repository's tasks/ (or $AGBENCH_TASKS)
    sample_interval_s: float = 0.5  # monitors: 2 Hz
    write_reports: bool = True

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (stored in run.json so ``--resume`` restores the same sweep)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Path):
                value = str(value)
            elif f.name == "archs":
                value = [a.value for a in value]
            elif isinstance(value, PriceTable):
                value = dataclasses.asdict(value)
            out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SweepOptions:
        names = {f.name for f in dataclasses.fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in names}
        kwargs["archs"] = [Architecture(a) for a in kwargs.get("archs", ["LO"])]
        kwargs["concurrency"] = [int(c) for c in kwargs.get("concurrency", [1])]
        for key in ("trajectories", "out", "resume", "runs_root", "tasks_root"):
            if kwargs.get(key) is not None:
                kwargs[key] = Path(kwargs[key])
        if isinstance(kwargs.get("prices"), dict):
            kwargs["prices"] = PriceTable(**kwargs["prices"])
        return cls(**kwargs)

    @property
    def agent_kind(self) -> AgentKind:
        return AgentKind(self.agent)

    @property
    def needs_models(self) -> bool:
        return self.agent_kind in (AgentKind.MODEL, AgentKind.REPLAY)


# ---- choices made once per sweep ----------------------------------------------------------------
def default_device_name() -> str:
    """A device label from the host name (configuration keys use ``|``, so it never holds one)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", socket.gethostname()).strip("-") or "device"


def select_run_tasks(options: SweepOptions) -> list[Task]:
    """The sweep's tasks in run order: the suite (or ``--task`` ids) in the seeded order, then
    ``--limit``'s first N, exactly as ``agbench trajectories synth`` and the simulator pick them."""
    return select_tasks(
        load_suite(options.tasks_root), ids=options.task_ids or None, limit=options.limit, seed=options.seed
    )


def make_agent(options: SweepOptions) -> Agent:
    kind = options.agent_kind
    if kind is AgentKind.MODEL:
        from agbench.live.agents.model_agent import ModelAgent

        return ModelAgent(options.compaction)
    if kind is AgentKind.ORACLE:
        from agbench.live.agents.oracle import OracleAgent

        return OracleAgent()
    if kind is AgentKind.NULL:
        from agbench.live.agents.null import NullAgent

        return NullAgent()
    from agbench.live.replay import ReplayAgent
    from agbench.trajectory import TrajectorySet

    if options.trajectories is None:
        raise AgbenchError("--agent replay needs --trajectories FILE")
    if not options.trajectories.is_file():
        raise AgbenchError(f"trajectory file not found: {options.trajectories}")
    agent: Agent = ReplayAgent(TrajectorySet.load(options.trajectories))
    return agent


def validate_options(options: SweepOptions) -> None:
    """One-line errors for options that cannot work, before anything starts."""
    if options.agent not in AGENT_NAMES:
        raise AgbenchError(f"unknown agent {options.agent!r} (one of {', '.join(AGENT_NAMES)})")
    if not options.archs:
        raise AgbenchError("no architecture given")
    if not options.concurrency or any(c < 1 for c in options.concurrency):
        raise AgbenchError("concurrency levels must be positive integers")
    if options.backend not in ("bwrap", "docker"):
        raise AgbenchError(f"unknown sandbox backend {options.backend!r} (docker or bwrap)")
    if options.time_limit is not None and options.time_limit <= 0:
        raise AgbenchError("--time-limit must be positive")
    if options.max_tokens is not None and options.max_tokens < 1:
        raise AgbenchError("--max-tokens must be at least 1")
    if options.local_ctx is not None and options.local_ctx < 64:
        raise AgbenchError("--local-ctx must be at least 64")
    if options.device is not None and ("|" in options.device or not options.device.strip()):
        raise AgbenchError("--device must be a non-empty name without '|'")
    from agbench.live.agents.model_agent import COMPACTION_POLICIES

    if options.compaction not in COMPACTION_POLICIES:
        raise AgbenchError(f"unknown compaction policy {options.compaction!r}")
    from agbench.live.parsers import normalise_parser_name

    normalise_parser_name(options.tool_call_parser)  # AgbenchError naming the bad parser
    uses_cloud = options.needs_models and any(a.uses_cloud for a in options.archs)
    if options.cloud_url and uses_cloud and not os.environ.get(options.cloud_api_key_env):
        log.warning("no API key in $%s: cloud requests go without one", options.cloud_api_key_env)


def local_server_settings(options: SweepOptions, concurrency: int) -> ServerSettings:
    slots = options.local_parallel or concurrency
    settings = ServerSettings(
        model=options.local_model,
        n_ctx=options.local_ctx or DEFAULT_CTX_PER_SLOT * slots,
        n_parallel=slots,
        kv_unified=options.local_kv_unified,
    )
    if options.local_threads:
        settings.threads = options.local_threads
    return settings


def standin_server_settings(options: SweepOptions, concurrency: int) -> ServerSettings:
    """The cloud stand-in: the local model again, as many slots as tasks, never short of context."""
    settings = ServerSettings(
        model=options.local_model,
        n_ctx=DEFAULT_CTX_PER_SLOT * concurrency,
        n_parallel=concurrency,
    )
    if options.local_threads:
        settings.threads = options.local_threads
    return settings


def _redact_url(url: str | None) -> str | None:
    if url is None:
        return None
    from agbench.live.secrets import Redactor

    redacted: str = Redactor().text(url)
    return redacted


def run_metadata(options: SweepOptions, run_id: str, device: str, tasks: list[Task]) -> dict[str, Any]:
    """What run.json records about the sweep (never a secret: keys are named, not stored)."""
    uses_cloud = options.needs_models and any(a.uses_cloud for a in options.archs)
    standin = uses_cloud and not options.cloud_url
    cloud = CloudSettings(
        url=_redact_url(options.cloud_url),
        model=options.cloud_model or (CLOUD_STANDIN_ALIAS if standin else CloudSettings().model),
        api_key_env=options.cloud_api_key_env,
        prices=options.prices,
        standin=standin,
    )
    labels = ["cloud stand-in"] if standin else []
    options_dict = options.to_dict()
    options_dict["local_url"] = _redact_url(options.local_url)
    options_dict["cloud_url"] = _redact_url(options.cloud_url)
    return {
        "run_id": run_id,
        "source": "live",
        "device": device,
        "agent_kind": options.agent,
        "architectures": [a.value for a in options.archs],
        "concurrency": list(options.concurrency),
        "seed": options.seed,
        "task_order": [t.id for t in tasks],
        "backend": options.backend,
        "time_limit_s": options.time_limit,
        "max_tokens": options.max_tokens or (DEFAULT_MAX_TOKENS if options.agent == "model" else None),
        "tool_call_parser": options.tool_call_parser,
        "compaction": options.compaction,
        "local": {
            "url": _redact_url(options.local_url),
            "managed": options.local_url is None,
            "model": options.local_model,
            "servers": {str(c): local_server_settings(options, c).to_dict() for c in options.concurrency}
            if options.local_url is None
            else {},
        },
        "cloud": dataclasses.asdict(cloud),
        "cloud_standin": standin,
        "labels": labels,
        "prompts": prompt_texts(),
        "options": options_dict,
        "host": {
            "hostname": socket.gethostname(),
            "platform": platform.platform(),
            "python": sys.version.split()[0],
            "cpus": os.cpu_count(),
        },
    }


def _template_drops_tools(base_url: str) -> bool:
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


# ---- logging and progress -----------------------------------------------------------------------
class _ConsoleHandler(logging.Handler):
    """Timestamped log lines printed through the progress bar's console (both on stderr)."""

    def __init__(self, console: Any) -> None:
        super().__init__()
        self.console = console
        self.setFormatter(logging.Formatter("%(asctime)s %(levelname)-7s %(message)s", "%Y-%m-%d %H:%M:%S"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.console.print(self.format(record), markup=False, highlight=False, soft_wrap=True)
        except Exception:
            self.handleError(record)


@contextlib.contextmanager
def _console_logging(quiet: bool) -> Iterator[Any]:
    from rich.console import Console

    console = Console(stderr=True)
    logger = logging.getLogger("agbench")
    handler = _ConsoleHandler(console)
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


# ---- the sweep ----------------------------------------------------------------------------------
@dataclass
class _Endpoints:
    """One configuration's model endpoints: base URLs (direct) and the model names to ask for."""

    direct: dict[str, str] = field(default_factory=dict)  # endpoint -> upstream base URL
    models: dict[str, str] = field(default_factory=dict)
    api_keys: dict[str, str | None] = field(default_factory=dict)
    settings: dict[str, ServerSettings] = field(default_factory=dict)  # managed servers' settings
    proxy: Any = None  # the configuration's RecordingProxy
    text_tools: set[str] = field(default_factory=set)  # endpoints whose template drops `tools`


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
        self.agent = agent
        # A run killed with SIGKILL leaves its attempts' host folders behind: clear them first.
        prefix = "agbench-" + re.sub(r"[^A-Za-z0-9._-]+", "_", run_id) + "-"
        for stale in Path(tempfile.gettempdir()).glob(prefix + "*"):
            shutil.rmtree(stale, ignore_errors=True)
        self.sandbox_root = Path(tempfile.mkdtemp(prefix=prefix))
        self.corpus_dir = (options.tasks_root or suite_root()) / "_corpus"
        self.progress: Any = None
        self.progress_task: Any = None
        self.finished: set[tuple[str, str]] = set()
        self.last_attempt: dict[tuple[str, str], int] = {}
        self.results: list[TaskRun] = []
        self.servers: dict[str, tuple[ServerSettings, Any]] = {}  # name -> (settings, ManagedServer)
        self.recorders: dict[str, AttemptRecorder] = {}  # proxy token -> the attempt's recorder

    # -- configurations --------------------------------------------------------------------
    def configurations(self) -> list[Configuration]:
        return [
            Configuration(self.device, arch, c)
            for c in self.options.concurrency
            for arch in self.options.archs
        ]

    def pending(self, config: Configuration) -> list[Task]:
        return [t for t in self.tasks if (config.key, t.id) not in self.finished]

    async def run(self) -> None:
        # Read the journals once: each pair runs at most once per sweep process, so its next
        # attempt number is known up front (re-reading every journal per attempt is quadratic).
        self.finished = self.store.finished_pairs()
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
            await self._stop_servers()
            shutil.rmtree(self.sandbox_root, ignore_errors=True)

    async def _run_configuration(self, config: Configuration, todo: list[Task]) -> None:
        log.info(
            "configuration %s: %d task(s), agent %s, at most %d at once",
            config.key,
            len(todo),
            self.options.agent,
            config.concurrency,
        )
        endpoints = await self._start_endpoints(config)
        try:
            monitors = self._start_monitors(config, endpoints)
        except BaseException:
            await self._stop_endpoints(endpoints)
            raise
        t0 = time.monotonic()
        try:
            queue: asyncio.Queue[Task] = asyncio.Queue()
            for task in todo:
                queue.put_nowait(task)

            async def worker() -> None:
                while True:
                    try:
                        task = queue.get_nowait()
                    except asyncio.QueueEmpty:
                        return
                    await self._run_attempt(config, task, endpoints)

            workers = [asyncio.create_task(worker()) for _ in range(min(config.concurrency, len(todo)))]
            try:
                await asyncio.gather(*workers)
            except BaseException:
                for w in workers:
                    w.cancel()
                await asyncio.gather(*workers, return_exceptions=True)
                raise
        finally:
            self._stop_monitors(monitors)
            await self._stop_endpoints(endpoints)
        log.info("configuration %s done in %.1f s", config.key, time.monotonic() - t0)

    # -- servers ---------------------------------------------------------------------------
    async def _server(self, name: str, settings: ServerSettings, alias: str, config: Configuration) -> Any:
        """The managed server ``name`` with exactly ``settings``, (re)started only when they change.

        Consecutive configurations with the same server settings (the architectures of one
        concurrency level) share the running server, as one long-lived server on a device would.
        """
        from agbench.live.serving import ManagedServer

        current = self.servers.get(name)
        if current is not None and current[0] == settings and current[1].alive():
            return current[1]
        if current is not None:
            await asyncio.to_thread(current[1].stop)
            del self.servers[name]
        server = ManagedServer(settings, alias=alias, log_path=self._server_log(name, config))
        self.servers[name] = (settings, server)
        await asyncio.to_thread(server.start)
        log.info(
            "%s server %s at %s: %d slot(s), ctx %d%s, %d thread(s)",
            name, settings.model, server.url, settings.n_parallel, settings.n_ctx,
            " unified" if settings.kv_unified else "", settings.threads,
        )  # fmt: skip
        return server

    async def _stop_servers(self) -> None:
        for _settings, server in self.servers.values():
            with contextlib.suppress(Exception):
                await asyncio.to_thread(server.stop)
        self.servers.clear()

    async def _start_endpoints(self, config: Configuration) -> _Endpoints:
        eps = _Endpoints()
        if not self.options.needs_models:
            return eps
        plan = plan_for(config.architecture)
        try:
            if "local" in plan.endpoints:
                eps.models["local"] = self.options.local_model
                eps.api_keys["local"] = None
                if self.options.local_url:
                    eps.direct["local"] = self.options.local_url.rstrip("/")
                else:
                    settings = local_server_settings(self.options, config.concurrency)
                    server = await self._server("local", settings, self.options.local_model, config)
                    eps.settings["local"] = settings
                    eps.direct["local"] = server.url
            if "cloud" in plan.endpoints:
                if self.options.cloud_url:
                    eps.direct["cloud"] = self.options.cloud_url.rstrip("/")
                    eps.models["cloud"] = self.options.cloud_model or CloudSettings().model
                    eps.api_keys["cloud"] = os.environ.get(self.options.cloud_api_key_env) or None
                else:
                    settings = standin_server_settings(self.options, config.concurrency)
                    server = await self._server("cloud-standin", settings, CLOUD_STANDIN_ALIAS, config)
                    eps.settings["cloud"] = settings
                    eps.direct["cloud"] = server.url
                    eps.models["cloud"] = CLOUD_STANDIN_ALIAS
                    eps.api_keys["cloud"] = None
            for endpoint, url in eps.direct.items():
                if await asyncio.to_thread(_template_drops_tools, url):
                    eps.text_tools.add(endpoint)
                    recorded = set(self.store.meta().get("tools_in_prompt", []))
                    if endpoint not in recorded:  # run.json says whose tools went into the prompt
                        self.store.update_meta(tools_in_prompt=sorted(recorded | {endpoint}))
            if eps.text_tools:
                log.info("no tool support in the chat template of %s: tools described in the prompt",
                         ", ".join(sorted(eps.text_tools)))  # fmt: skip
            await self._start_proxy(eps)
        except BaseException:
            await self._stop_endpoints(eps)
            raise
        return eps

    def _server_log(self, name: str, config: Configuration) -> Path:
        """llama-server's own log, kept in the run directory (one per server start)."""
        return self.store.root / "logs" / f"{name}-C{config.concurrency}.log"

    async def _stop_endpoints(self, eps: _Endpoints) -> None:
        """The configuration's proxy; its servers stay up for the next configuration."""
        if eps.proxy is not None:
            with contextlib.suppress(Exception):
                await eps.proxy.stop()
            eps.proxy = None

    # -- proxy and monitors ----------------------------------------------------------------
    async def _start_proxy(self, eps: _Endpoints) -> None:
        """The configuration's recording proxy: every model request of every agent goes through it."""
        from agbench.live.proxy import RecordingProxy, Upstream

        upstreams = {
            endpoint: Upstream(
                base_url=url,
                endpoint=endpoint,
                api_key=eps.api_keys.get(endpoint),
                prices=self.options.prices if endpoint == "cloud" else None,
                timeout_s=MAX_REQUEST_S,
            )
            for endpoint, url in eps.direct.items()
        }
        proxy = RecordingProxy(upstreams, self.store.root / "raw_responses.jsonl", on_call=self._on_call)
        await proxy.start()
        eps.proxy = proxy

    def _on_call(self, record: Any) -> None:
        """The proxy measured a call: its rows go into the attempt's journal."""
        recorder = self.recorders.get(record.token)
        if recorder is None:
            return
        for row in record.model_calls():
            recorder.model_call(row)
        for exposure in record.exposures:
            recorder.exposure(exposure)

    def _start_monitors(self, config: Configuration, eps: _Endpoints) -> list[Any]:
        """Resource sampler and one server sampler per managed server, for the configuration."""
        from agbench.live.monitors import ResourceSampler, ServerSampler

        started: list[Any] = []
        ids: dict[str, Any] = {
            "run_id": self.run_id,
            "device": config.device,
            "architecture": config.architecture.value,
            "concurrency": config.concurrency,
        }
        safe = re.sub(r"[^A-Za-z0-9._=-]+", "_", config.key)
        interval = self.options.sample_interval_s
        try:
            resource = ResourceSampler(self.store.sample_writer(f"resources-{safe}").write, interval, **ids)
            resource.start()
            started.append(resource)
            for endpoint, url in eps.direct.items():
                if endpoint == "cloud" and "cloud" not in eps.settings:
                    continue  # a real cloud API has no /metrics to sample
                name = "local" if endpoint == "local" else "cloud-standin"
                settings = eps.settings.get(endpoint)
                sampler = ServerSampler(
                    url,
                    self.store.sample_writer(f"server-{name}-{safe}").write,
                    interval,
                    server=name,
                    kv_total=settings.n_ctx if settings else None,
                    unified_kv=bool(settings and settings.kv_unified),
                    **ids,
                )
                sampler.start()
                started.append(sampler)
        except BaseException:
            self._stop_monitors(started)
            raise
        return started

    def _stop_monitors(self, started: list[Any]) -> None:
        for monitor in started:
            with contextlib.suppress(Exception):
                monitor.stop()

    def _backend_factory(
        self, key: AttemptKey, eps: _Endpoints, token: str | None, time_limit: float, clients: list[Any]
    ) -> Any:
        from agbench.live.providers import ChatClient

        cache: dict[tuple[str, str], Any] = {}

        def backend_for(agent: str, endpoint: str) -> ChatBackend:
            if (agent, endpoint) not in cache:
                if eps.proxy is None or token is None:
                    raise AgbenchError(f"no {endpoint} model endpoint in configuration {key.config.key}")
                client = ChatClient(
                    eps.proxy.base_url(endpoint, token, agent),
                    eps.models[endpoint],
                    endpoint=endpoint,
                    api_key=None,  # the proxy adds the key: it never leaves the harness's memory
                    timeout_s=min(MAX_REQUEST_S, time_limit),
                    max_retries=2,
                )
                cache[(agent, endpoint)] = client
                clients.append(client)
            backend: ChatBackend = cache[(agent, endpoint)]
            return backend

        return backend_for

    # -- one attempt -----------------------------------------------------------------------
    async def _run_attempt(self, config: Configuration, task: Task, eps: _Endpoints) -> None:
        """Sandbox, agent, verifier; always ends with a ``task_runs`` row (interrupted if stopped)."""
        from agbench.live.sandbox import MissingRequiredProgram, SandboxError, create_sandbox

        number = self.last_attempt.get((config.key, task.id), 0) + 1
        self.last_attempt[(config.key, task.id)] = number
        key = RunScope(self.run_id, config).attempt(task.id, number)
        # The header names the task's category so an attempt cut off by SIGKILL is still
        # reported under it once ``mark_interrupted`` closes it on resume.
        writer = self.store.attempt_writer(
            key, task_info={"category": task.category, "difficulty": task.difficulty}
        )
        recorder = AttemptRecorder(writer, self.run_id, config, task, number, self.options.prices)
        time_limit = float(self.options.time_limit or task.time_limit_s)
        t_start = time.time()
        m_start = time.monotonic()
        outcome: AgentOutcome | None = None
        status, reward, reason = Status.INFRASTRUCTURE_ERROR, 0.0, ""
        sandbox: Any = None
        clients: list[Any] = []
        token: str | None = None
        interrupted = False
        died: str | None = None
        attempt_dir = (
            self.sandbox_root / f"{uuid.uuid4().hex[:8]}-{re.sub(r'[^A-Za-z0-9._-]+', '_', task.id)}"
        )
        try:
            if eps.proxy is not None:
                token = eps.proxy.register_attempt(key, tuple(item.item for item in task.sensitive_items))
                self.recorders[token] = recorder
            try:
                sandbox = create_sandbox(self.options.backend, task, attempt_dir)
                await sandbox.start()
            except MissingRequiredProgram as exc:
                status, reason, sandbox = Status.FAILED_MISSING_REQUIRED_TOOL, str(exc), None
            except (SandboxError, AgbenchError, OSError) as exc:
                status, reason, sandbox = Status.FAILED_SANDBOX, f"sandbox: {exc}", None
            if sandbox is not None:
                backends = self._backend_factory(key, eps, token, time_limit, clients)
                status, reward, reason, outcome = await self._drive(
                    config, task, sandbox, eps, recorder, time_limit, backends
                )
        except asyncio.CancelledError:
            interrupted = True
            status, reason = Status.INTERRUPTED, "run stopped while the attempt was running"
        finally:
            for client in clients:
                with contextlib.suppress(Exception):
                    await asyncio.shield(client.aclose())
            if sandbox is not None:
                with contextlib.suppress(BaseException):
                    await asyncio.shield(sandbox.destroy())
            shutil.rmtree(attempt_dir, ignore_errors=True)
            exposed = 0
            if token is not None and eps.proxy is not None:
                exposed = len(eps.proxy.exposures_seen(token))
                eps.proxy.unregister_attempt(token)
                self.recorders.pop(token, None)
            died = self._dead_server() if status is Status.INFRASTRUCTURE_ERROR else None
            if died is not None:
                # Not this attempt's result: keep it as interrupted so a resume runs it again.
                status, reason = Status.INTERRUPTED, f"{reason}; {died}"
            wall = time.monotonic() - m_start
            row = self._task_run(
                config, task, number, t_start, wall, status, reward, reason, outcome, recorder, exposed
            )
            recorder.close(row)
            self.results.append(row)
            self._report_progress(row)
        if interrupted:
            raise asyncio.CancelledError
        if died is not None:
            raise ServerDied(
                f"{died}; the sweep stopped (continue it with: agbench sweep --resume {self.store.root})"
            )

    def _dead_server(self) -> str | None:
        """What died, if one of the managed servers is no longer running."""
        for name, (_settings, server) in self.servers.items():
            try:
                server.check()
            except AgbenchError as exc:
                return f"{name} server died: {exc}"
        return None

    async def _drive(
        self,
        config: Configuration,
        task: Task,
        sandbox: Any,
        eps: _Endpoints,
        recorder: AttemptRecorder,
        time_limit: float,
        backends: Any,
    ) -> tuple[Status, float, str, AgentOutcome | None]:
        """Agent, then verifier: (status, reward, reason, the agent's outcome)."""
        from agbench.live.tools import default_tools
        from agbench.live.verification import verify

        ctx = AgentContext(
            task=task,
            architecture=config.architecture,
            sandbox=sandbox,
            tools=default_tools(task, self.corpus_dir),
            deadline=time.monotonic() + time_limit,
            seed=self.options.seed,
            server_urls=dict(eps.direct),
            backends=backends,
            recorder=recorder,
            calls_recorded_by_proxy=True,
            agent_kind=self.options.agent_kind,
            tool_call_parser=self.options.tool_call_parser,
            max_tokens=self.options.max_tokens,
            text_tool_endpoints=frozenset(eps.text_tools),
        )
        try:
            outcome = await asyncio.wait_for(self.agent.run(ctx), timeout=time_limit)
        except TimeoutError:
            outcome = AgentOutcome("", Status.TIMEOUT, f"task deadline of {time_limit:g} s passed")
        except AgbenchError as exc:
            outcome = AgentOutcome("", Status.INFRASTRUCTURE_ERROR, f"{type(exc).__name__}: {exc}")
        except Exception as exc:  # an agent bug must not take the sweep down; it is recorded
            log.exception("%s %s: the agent raised", config.key, task.id)
            outcome = AgentOutcome("", Status.EXECUTION_ERROR, f"agent raised {type(exc).__name__}: {exc}")
        if outcome.status is not None:
            return outcome.status, 0.0, outcome.reason, outcome
        try:
            verdict = await verify(sandbox, task, outcome.answer)
        except Exception as exc:
            return Status.FAILED_GRADER, 0.0, f"verifier: {type(exc).__name__}: {exc}", outcome
        return Status(verdict.status), float(verdict.reward), str(verdict.reason), outcome

    def _task_run(
        self,
        config: Configuration,
        task: Task,
        attempt: int,
        t_start: float,
        wall: float,
        status: Status,
        reward: float,
        reason: str,
        outcome: AgentOutcome | None,
        recorder: AttemptRecorder,
        exposed: int,
    ) -> TaskRun:
        b = recorder.breakdown
        tally = recorder.tally
        return TaskRun(
            run_id=self.run_id,
            device=config.device,
            architecture=config.architecture.value,
            concurrency=config.concurrency,
            agent_kind=self.options.agent,
            task=task.id,
            category=task.category,
            attempt=attempt,
            t_start=t_start,
            t_end=t_start + wall,
            status=status.value,
            reward=reward,
            reason=reason[:2000],
            difficulty=task.difficulty,
            local_model_s=b.local_model_s,
            cloud_model_s=b.cloud_model_s,
            tools_s=b.tools_s,
            other_s=max(0.0, wall - b.accounted_s),
            prompt_tokens=tally.prompt_tokens,
            cached_tokens=tally.cached_tokens,
            completion_tokens=tally.completion_tokens,
            cloud_prompt_tokens=tally.cloud_prompt_tokens,
            cloud_cached_tokens=tally.cloud_cached_tokens,
            cloud_completion_tokens=tally.cloud_completion_tokens,
            cloud_cost_usd=tally.cloud_cost_usd,
            cloud_calls=tally.cloud_calls,
            model_calls=tally.model_calls,
            tool_calls=tally.tool_calls,
            sensitive_total=len(task.sensitive_items),
            sensitive_exposed=exposed,
            local_context_errors=max(
                tally.local_context_errors, outcome.local_context_errors if outcome else 0
            ),
            full_capability=status is not Status.FAILED_MISSING_REQUIRED_TOOL,
            answer=(outcome.answer if outcome else "")[:2000],
        )

    def _report_progress(self, row: TaskRun) -> None:
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
    meta = store.meta()
    stored = meta.get("options")
    if not isinstance(stored, dict):
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


def _print_summary(console: Any, results: list[TaskRun], run_dir: Path) -> None:
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
    tasks = select_run_tasks(options)
    if not tasks:
        raise AgbenchError("no task selected")
    if options.agent_kind is AgentKind.REPLAY:  # every (task, architecture) needs its trajectory
        from agbench.live.replay import ReplayAgent

        assert isinstance(agent, ReplayAgent)
        agent.check([t.id for t in tasks], options.archs)
    device = options.device or default_device_name()
    if store is None:
        run_dir = _new_run_dir(options)
        run_id = run_dir.name if options.out is None else f"{run_dir.name}-{uuid.uuid4().hex[:6]}"
        store = RunStore.create(run_dir, run_metadata(options, run_id, device, tasks))
        (run_dir / "raw_responses.jsonl").touch()  # every live run has one, even without model calls
        if options.trajectories is not None:
            # The run keeps the decisions it replayed, so the simulator can replay them too.
            shutil.copyfile(options.trajectories, run_dir / "trajectories.jsonl")
    meta = store.meta()
    run_id = str(meta.get("run_id", run_dir.name))
    device = str(meta.get("device", device))
    with _console_logging(options.quiet) as console:
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
            " (cloud stand-in)" if meta.get("cloud_standin") else "",
        )
        sweep = Sweep(options, store, tasks, run_id, device, agent)
        failure: ServerDied | None = None
        try:
            stopped = _run_with_signals(sweep, console, options.quiet)
        except ServerDied as exc:
            stopped, failure = True, exc
            log.error("%s", exc)
        store.update_meta(finished=None if stopped else time.time(), stopped=stopped)
        store.compact()
        if options.write_reports:
            try:
                from agbench.report import write_reports

                write_reports([run_dir])
            except Exception as exc:  # the traces are safe; a report can be rewritten later
                log.error(
                    "no report written (%s: %s); rerun `agbench report %s`", type(exc).__name__, exc, run_dir
                )
        if not stopped:
            with contextlib.suppress(OSError):
                copy_to_latest(run_dir, options.runs_root)
        _print_summary(console, sweep.results, run_dir)
    if failure is not None:
        raise failure
    if stopped:
        raise SweepInterrupted(f"sweep stopped; continue it with: agbench sweep --resume {run_dir}")
    return run_dir


def _run_with_signals(sweep: Sweep, console: Any, quiet: bool) -> bool:
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


__all__ = [
    "SweepInterrupted",
    "SweepOptions",
    "default_device_name",
    "local_server_settings",
    "make_agent",
    "run_metadata",
    "run_sweep",
    "select_run_tasks",
]
