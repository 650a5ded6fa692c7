"""The options of a live sweep and the choices made once per sweep from them.

``SweepOptions`` is every flag of ``agbench run`` / ``agbench sweep`` (JSON-ready: run.json keeps
it so ``--resume`` restores the same sweep); the functions here pick the tasks (the core's one
selection rule), the agent, the device name and the managed servers' settings, and reject
options that cannot work with a one-line error before anything starts.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from agbench.config import SANDBOX_BACKENDS, AgentKind, Architecture, PriceTable, ServerSettings
from agbench.errors import AgbenchError
from agbench.hcl_sub_agent import recorded_sub_agent, sub_agent_memory
from agbench.live.agents.base import Agent
from agbench.live.agents.model_agent import COMPACTION_POLICIES, ModelAgent
from agbench.live.agents.null import NullAgent
from agbench.live.agents.oracle import OracleAgent
from agbench.live.judge import judge_settings
from agbench.live.parsers import normalise_parser_name
from agbench.live.privacy.detectors import DETECTORS, make_detector
from agbench.live.privacy.guard import GuardMode, GuardSettings
from agbench.live.privacy.presidio_detector import DEFAULT_ENTITIES
from agbench.live.replay import ReplayAgent
from agbench.live.runner.request_settings import validate_request_settings
from agbench.live.tools import TOOL_NAMES
from agbench.schema import COUNT, FRACTION, NON_NEGATIVE, Bound, bounds, check
from agbench.suites.registry import plan_suites
from agbench.task import Task, load_suite, select_tasks, suite_root
from agbench.trajectory import TrajectorySet

if TYPE_CHECKING:
    from agbench.live.judge import JudgeSettings

log = logging.getLogger("agbench.live.runner")

AGENT_NAMES = tuple(k.value for k in AgentKind)
#: Total KV tokens per slot of the managed local server when ``--local-ctx`` is not given.
DEFAULT_CTX_PER_SLOT = 4096
CLOUD_STANDIN_ALIAS = "cloud-standin"
#: The longest one model request may take before it counts as a ``timeout`` error (the default
#: of ``--model-request-timeout``).
MAX_REQUEST_S = 600.0
#: ``--keep-workspaces`` choices: which attempts' sandbox workspaces stay on disk.
KEEP_WORKSPACES = ("none", "failed", "all")
#: ``--privacy-guard`` choices (live/privacy/guard.py).
GUARD_MODES = tuple(m.value for m in GuardMode)


class SweepInterrupted(AgbenchError):
    """The sweep was stopped (Ctrl-C / SIGTERM) before it finished; it can be resumed."""


class ServerDied(AgbenchError):
    """A managed model server died mid-sweep; the attempts it broke are kept as interrupted."""


@dataclass
class SweepOptions:
    """Every option of ``agbench run`` / ``agbench sweep`` (docs/design.md, command line)."""

    archs: Annotated[list[Architecture], Bound(min_items=1, unit="architectures")] = field(
        default_factory=lambda: [Architecture.LO]
    )
    concurrency: Annotated[list[Annotated[int, COUNT]], Bound(min_items=1, unit="levels")] = field(
        default_factory=lambda: [1]
    )
    limit: int | None = None
    task_ids: list[str] = field(default_factory=list)
    suites: list[str] = field(default_factory=list)  # --suite ID (repeatable): agbench.suites
    profile: str | None = None  # --profile full_active: every active suite
    external_timeout: Annotated[float, Bound(gt=0, unit="s")] = (
        21600.0  # wall-clock limit of one external harness container
    )
    local_url: str | None = None
    local_model: str = "smollm2-135m"
    cloud_url: str | None = None
    cloud_model: str | None = None
    local_ctx: Annotated[int | None, Bound(ge=64, unit="KV tokens")] = (
        None  # total KV tokens; default DEFAULT_CTX_PER_SLOT per slot
    )
    local_parallel: int | None = None  # slots; default: the configuration's concurrency
    local_kv_unified: bool = False
    local_threads: int | None = None
    local_cpu_strict: bool = False  # both managed servers (local, stand-in): ServerSettings.cpu_strict
    agent: Annotated[str, Bound(choices=AGENT_NAMES)] = "model"
    trajectories: Path | None = None
    backend: Annotated[str, Bound(choices=SANDBOX_BACKENDS)] = "bwrap"
    time_limit: Annotated[float | None, Bound(gt=0, unit="s")] = (
        None  # deadline override; default each task's own (agbench.task.task_deadline_s)
    )
    tool_call_parser: str = "auto"
    max_tokens: Annotated[int | None, Bound(ge=1, unit="tokens")] = None
    device: str | None = None  # default: from the host name
    seed: int = 0
    out: Path | None = None  # the run directory itself
    resume: Path | None = None
    quiet: bool = False
    # Operability (preflight, request timeout, retries, cloud spend and rate, workspaces):
    local_api_key_env: str | None = None  # env var holding the local server's API key
    preflight: bool = True  # check endpoints, models, sandbox, tasks and disk before any task
    model_request_timeout: Annotated[float, Bound(gt=0, unit="s")] = (
        600.0  # one model request's limit; its expiry is a `timeout`
    )
    retries: Annotated[int, NON_NEGATIVE] = (
        2  # per model request: 429s and refused connections, backoff with jitter
    )
    max_cloud_usd: Annotated[float | None, Bound(ge=0, unit="USD")] = (
        None  # no cloud call starts once the spend reaches this
    )
    cloud_rpm: Annotated[int | None, Bound(ge=1, unit="requests per minute")] = (
        None  # cloud requests per minute, all agents of the run together
    )
    cloud_tpm: Annotated[int | None, Bound(ge=1, unit="tokens per minute")] = (
        None  # cloud tokens per minute, all agents of the run together
    )
    keep_workspaces: Annotated[str, Bound(choices=KEEP_WORKSPACES)] = (
        "none"  # keep attempt workspaces: "none" | "failed" | "all"
    )
    hcl_sub_agent: str = "persistent"  # HCL's sub-agent across delegations (agbench.hcl_sub_agent)
    watchdog: bool = True  # restart a dead or hung managed server with the same settings
    # Judge (live/judge): rubric grading and the exposure judge; its key is read from
    # $AGBENCH_JUDGE_API_KEY and never stored.
    judge_provider: str = "none"  # same-as-target | openai-compatible | mock | none
    judge_url: str | None = None
    judge_model: str | None = None
    exposure_judge: bool = False
    # Privacy guard (live/privacy): every cloud-bound request redacted or refused, and scored.
    privacy_guard: Annotated[str, Bound(choices=GUARD_MODES)] = "off"
    detector: Annotated[str, Bound(choices=DETECTORS)] = "declared"
    detector_entities: Annotated[list[str], Bound(choices=DEFAULT_ENTITIES)] = field(
        default_factory=list  # presidio's entities (and SECRET, detect-secrets); empty = all
    )
    detector_threshold: Annotated[float, FRACTION] = 0.4  # presidio: results scored below are dropped
    # Providers and flags of the Agent Bench command line (live/runner/request_settings.py):
    provider: str | None = None  # None: the URL given, else a managed server | openai-compatible | mock
    mock_wrong_rate: float = 0.2  # --provider mock: share of conversations answered wrongly (seeded)
    categories: list[str] = field(default_factory=list)  # --category (repeatable)
    local_max_tokens: int | None = None  # per-endpoint caps: replace --max-tokens on that endpoint
    cloud_max_tokens: int | None = None
    temperature: float | None = None  # sampling settings sent in every agent request when given
    top_p: float | None = None
    request_seed: int | None = None  # the request's `seed` (set by an explicit --seed)
    reasoning_effort: str | None = None
    repeat: int = 1  # attempts per (configuration, task): all of them count, as repeats
    price_table: Path | None = None  # the file --price-table read into `prices` (recorded)
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
        if "hcl_sub_agent" not in data:  # a run.json written before the option: fresh sub-agents
            kwargs["hcl_sub_agent"] = recorded_sub_agent(data).value
        for key in ("trajectories", "out", "resume", "runs_root", "tasks_root", "price_table"):
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
    ``--limit``'s first N, exactly as ``agbench trajectories synth`` and the simulator pick them.

    A replay sweep without ``--task`` ids picks among the tasks its trajectory file holds, as
    ``agbench sim --trajectories`` does: ``--limit 4`` replays the file's first four in the
    suite's order, not the suite's first four (which the file may not hold). Named ids are
    kept as named, so a missing trajectory is reported by name."""
    if options.suites or options.profile:
        # Suites (agbench.suites): a suite that may not run contributes rows with its strict
        # status (manifest, assets, required tools) while the other suites run.
        pool = plan_suites(
            options.tasks_root or suite_root(), list(options.suites), options.profile, TOOL_NAMES
        )
    else:
        pool = load_suite(options.tasks_root)
    replaying = options.agent_kind is AgentKind.REPLAY and not options.task_ids
    # a missing trajectory file is make_agent's one-line error, not this one's
    if replaying and options.trajectories is not None and options.trajectories.is_file():
        replayable = {t.task for t in TrajectorySet.load(options.trajectories).trajectories}
        pool = [t for t in pool if t.id in replayable]
    return select_tasks(
        pool,
        ids=options.task_ids or None,
        categories=options.categories or None,
        limit=options.limit,
        seed=options.seed,
    )


def make_agent(options: SweepOptions) -> Agent:
    kind = options.agent_kind
    if kind is AgentKind.MODEL:
        return ModelAgent(options.compaction, options.hcl_sub_agent)
    if kind is AgentKind.ORACLE:
        return OracleAgent()
    if kind is AgentKind.NULL:
        return NullAgent()

    if options.trajectories is None:
        raise AgbenchError("--agent replay needs --trajectories FILE")
    if not options.trajectories.is_file():
        raise AgbenchError(f"trajectory file not found: {options.trajectories}")
    agent: Agent = ReplayAgent(TrajectorySet.load(options.trajectories), hcl_sub_agent=options.hcl_sub_agent)
    return agent


def _check_names(options: SweepOptions) -> None:
    """Options whose allowed values are defined by the live modules that use them."""

    if options.compaction not in COMPACTION_POLICIES:
        raise AgbenchError(f"unknown compaction policy {options.compaction!r}")
    sub_agent_memory(options.hcl_sub_agent)  # AgbenchError naming the choices
    normalise_parser_name(options.tool_call_parser)  # AgbenchError naming the bad parser
    if options.device is not None and ("|" in options.device or not options.device.strip()):
        raise AgbenchError("--device must be a non-empty name without '|'")


def validate_options(options: SweepOptions) -> None:
    """One-line errors for options that cannot work, before anything starts."""

    unbounded = tuple(f.name for f in dataclasses.fields(options) if f.name not in bounds(SweepOptions))
    check(options, "invalid option", skip=unbounded, flags=True)  # types, ranges, choices
    _check_names(options)
    validate_request_settings(options)  # provider, caps, sampling, --repeat: one-line errors
    judge_settings_of(options)  # JudgeConfigError (one line) for judge options that cannot work
    guard_settings_of(options)  # AgbenchError (one line) for guard options that cannot work
    uses_cloud = options.needs_models and any(a.uses_cloud for a in options.archs)
    if options.cloud_url and uses_cloud and not os.environ.get(options.cloud_api_key_env):
        log.warning("no API key in $%s: cloud requests go without one", options.cloud_api_key_env)


def judge_settings_of(options: SweepOptions) -> JudgeSettings:
    """The run's judge from ``--judge-provider/--judge-url/--judge-model/--exposure-judge``."""

    return judge_settings(
        options.judge_provider,
        url=options.judge_url,
        model=options.judge_model,
        exposure_judge=options.exposure_judge,
        target_url=options.local_url,
        target_model="mock:oracle" if options.provider == "mock" else options.local_model,
        timeout_s=options.model_request_timeout,
    )


def guard_settings_of(options: SweepOptions) -> GuardSettings | None:
    """The run's privacy guard from ``--privacy-guard/--detector*``; None when off (the choices
    and the threshold's range are checked with the other fields, by ``validate_options``)."""
    settings = GuardSettings.of(
        options.privacy_guard, options.detector, tuple(options.detector_entities), options.detector_threshold
    )
    if not settings.active:
        return None
    if settings.detector.name == "presidio":  # build the engines now: a missing extra is one line
        make_detector(settings.detector, ())
    return settings


def local_server_settings(options: SweepOptions, concurrency: int) -> ServerSettings:
    slots = options.local_parallel or concurrency
    settings = ServerSettings(
        model=options.local_model,
        n_ctx=options.local_ctx or DEFAULT_CTX_PER_SLOT * slots,
        n_parallel=slots,
        kv_unified=options.local_kv_unified,
        cpu_strict=options.local_cpu_strict,
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
        cpu_strict=options.local_cpu_strict,
    )
    if options.local_threads:
        settings.threads = options.local_threads
    return settings


__all__ = [
    "AGENT_NAMES",
    "CLOUD_STANDIN_ALIAS",
    "DEFAULT_CTX_PER_SLOT",
    "KEEP_WORKSPACES",
    "MAX_REQUEST_S",
    "ServerDied",
    "SweepInterrupted",
    "SweepOptions",
    "default_device_name",
    "guard_settings_of",
    "local_server_settings",
    "make_agent",
    "select_run_tasks",
    "standin_server_settings",
    "validate_options",
]
