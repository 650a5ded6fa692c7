"""The event loop: one configuration (architecture x concurrency) of one scenario on SimPy.

``simulate`` builds the shared entities (CPU cores, local server, cloud), starts C workers
that take tasks in the seed's fixed order (closed loop: the next task starts when one ends;
the order is the core's ``agbench.task.select_tasks``, the one a live sweep runs),
runs SimPy to completion and returns the trace records in memory. Nothing here touches disk:
calibration and validation call it directly; ``metrics_out`` writes run directories.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Collection, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import simpy

from agbench.attempt import RunScope
from agbench.config import Architecture, Configuration
from agbench.errors import AgbenchError
from agbench.records import TaskRun
from agbench.sim.agents.task_agent import TaskAgent
from agbench.sim.agents.world import SimWorld
from agbench.sim.clock import events_scheduled
from agbench.sim.entities.cloud import CloudAPI
from agbench.sim.entities.cpu import ProcessorSharingCPU
from agbench.sim.entities.local_server import LocalServer
from agbench.sim.entities.per_token_server import PerTokenServer
from agbench.sim.entities.server_sampling import sample_recorder
from agbench.sim.entities.server_state import ServerState
from agbench.sim.profiles import Profile
from agbench.sim.workloads.base import SimTask, Workload

log = logging.getLogger(__name__)


@dataclass
class SimResult:
    """What one simulated configuration produced, in memory."""

    device: str
    architecture: str
    concurrency: int
    seed: int
    records: list[Any]
    suite_wall_s: float
    events: int
    wall_clock_s: float
    kv_peak_tokens: float = 0.0
    kv_total_tokens: int = 0
    stats: dict[str, float] = field(default_factory=dict)
    task_order: list[str] = field(default_factory=list)  # the order the tasks were started in
    # operating points beyond what the server profile measured (range_warnings)
    range_warnings: list[str] = field(default_factory=list)
    # what each server kept at the end, by name (LOCAL_SERVER, STANDIN_SERVER): a next
    # configuration on the same server starts from it (``simulate(carried=...)``)
    server_states: dict[str, ServerState] = field(default_factory=dict)

    def task_runs(self) -> list[TaskRun]:
        return [r for r in self.records if isinstance(r, TaskRun)]

    def table(self, name: str) -> list[Any]:
        return [r for r in self.records if name == r.TABLE]


def task_order(
    workload: Workload,
    seed: int,
    only: Collection[str] | None = None,
    order: Sequence[str] | None = None,
) -> list[SimTask]:
    """The order a simulation starts the workload's tasks in: the same for every configuration
    (paper, §method) and the same as a live sweep of those tasks with that seed and limit; or
    ``order``, task ids as a live run recorded them (validation replays that run's order, the
    one thing that makes it exact whatever selected the tasks then)."""
    if order is None:
        return workload.run_order(seed, only)
    by_id = {t.task: t for t in workload.tasks}
    missing = [t for t in order if t not in by_id]
    if missing:
        raise AgbenchError(f"the workload has no trajectory for task(s) {', '.join(missing)}")
    return [by_id[t] for t in order if only is None or t in only]


STANDIN_SERVER = "cloud-standin"  # the live sampler's name for the stand-in's samples
LOCAL_SERVER = "local"


def cloud_standin_server(
    env: simpy.Environment,
    profile: Profile,
    concurrency: int,
    cpu: ProcessorSharingCPU,
    sample: Callable[..., None],
    sample_interval_s: float,
) -> LocalServer:
    """The live harness's cloud stand-in: the same model on a second llama-server, one slot
    per concurrent task, a fixed context per slot (not unified), on the same cores."""
    cloud = profile.cloud
    slots = max(1, concurrency)
    settings = dataclasses.replace(
        profile.server,
        n_ctx=cloud.standin_ctx_per_slot * slots,
        n_parallel=slots,
        kv_unified=False,
        idle_cache_holds_kv=False,
        threads=cloud.standin_threads or profile.server.threads,
    )
    return LocalServer.on_device(
        env,
        profile,
        concurrency,
        cpu,
        settings=settings,
        sample_hook=lambda s, **at: sample(s, STANDIN_SERVER, **at),
        sample_interval_s=sample_interval_s,
        cpu_consumer="inference-cloud-standin",
    )


def simulate(
    profile: Profile,
    arch: Architecture | str,
    concurrency: int,
    seed: int,
    workload: Workload,
    *,
    device: str | None = None,
    run_id: str = "sim",
    sample_interval_s: float = 5.0,
    per_step_events: bool = False,
    only: Collection[str] | None = None,
    order: Sequence[str] | None = None,
    jitter: int | None = None,
    carried: Mapping[str, ServerState] | None = None,
    keep_states: bool = False,
) -> SimResult:
    """Simulate one configuration; deterministic for a given (profile, workload, seed, jitter).

    ``only``: run just these tasks of the workload, in the order the seed gives them
    (validation simulates the tasks a live configuration ran); ``order``: in this order instead
    (the order the live run recorded; a task named twice runs twice, as attempts 1 and 2, the
    way ``--repeat`` runs it).

    ``jitter``: the timing-jitter stream (agents/timing_jitter.py) whose draws the harness,
    tool and request-overhead times take; None: every such time at its fitted mean.

    ``carried``: by server name, what an earlier configuration left on a server this one
    shares, as a live sweep keeps a server whose settings do not change
    (entities/server_state.py); None: every server starts fresh. ``keep_states``: return what
    each server kept at the end (``SimResult.server_states``), for the next one.

    ``per_step_events`` swaps in the naive per-token server (entities/per_token_server.py: an event
    per decode step and per generated token of each sequence): only the speed benchmark uses it.
    """
    started = time.perf_counter()
    architecture = Architecture(arch)
    device_name = device or profile.device.name
    scope = RunScope(run_id, Configuration(device_name, architecture, concurrency))
    ids = scope.ids()
    env = simpy.Environment()
    cpu = ProcessorSharingCPU(env, profile.device.cores)
    records: list[Any] = []
    server: LocalServer | None = None

    sample = sample_recorder(env, ids, records)

    if architecture.uses_local:
        server_class = PerTokenServer if per_step_events else LocalServer
        server = server_class.on_device(
            env, profile, concurrency, cpu, sample_hook=sample, sample_interval_s=sample_interval_s
        )
    standin = (
        cloud_standin_server(env, profile, concurrency, cpu, sample, sample_interval_s)
        if profile.cloud.standin_local and architecture.uses_cloud
        else None
    )
    # the servers by the name a carried state is kept under
    by_name = {name: s for name, s in ((LOCAL_SERVER, server), (STANDIN_SERVER, standin)) if s is not None}
    for name, state in (carried or {}).items():
        if name in by_name:
            by_name[name].resume_from(state)
    world = SimWorld(
        env,
        profile,
        server,
        cpu,
        CloudAPI(profile.cloud),
        scope,
        seed,
        workload.agent_kind,
        records,
        cloud_server=standin,
        jitter=jitter,
    )
    queue = task_order(workload, seed, only, order)
    position = [0]
    attempts: dict[str, int] = {}  # a task the queue holds twice (``--repeat``) runs as attempt 2

    def worker() -> Generator[simpy.Event, Any, None]:
        while position[0] < len(queue):
            task = queue[position[0]]
            position[0] += 1
            attempts[task.task] = attempts.get(task.task, 0) + 1
            trajectory = workload.trajectory(task.task, architecture.value)
            agent = TaskAgent(world, task, trajectory, attempt=attempts[task.task])
            yield from agent.process()

    for _ in range(max(1, concurrency)):
        env.process(worker())
    env.run()
    runs = [r for r in records if isinstance(r, TaskRun)]
    suite = max((r.t_end for r in runs), default=0.0)
    if server is not None:
        sample(server)
    if standin is not None:
        sample(standin, STANDIN_SERVER)
    return SimResult(
        device=device_name,
        architecture=architecture.value,
        concurrency=concurrency,
        seed=seed,
        records=records,
        suite_wall_s=suite,
        events=events_scheduled(env),  # every event SimPy scheduled (its own counter)
        wall_clock_s=time.perf_counter() - started,
        kv_peak_tokens=server.kv_peak if server is not None else 0.0,
        kv_total_tokens=server.pool_tokens if server is not None else 0,
        stats={
            "server_replans": float(server.replans if server is not None else 0),
            "cpu_replans": float(cpu.replans),
            "context_errors": float(server.context_errors if server is not None else 0),
        },
        task_order=[t.task for t in queue],
        range_warnings=range_warnings(profile, server),
        server_states={name: running.state() for name, running in by_name.items()} if keep_states else {},
    )


def range_warnings(profile: Profile, server: LocalServer | None) -> list[str]:
    """Where the simulated server went beyond the range its server profile measured (the
    calibrated profile's ``fit.server_profile.ranges``): those rates are extrapolated."""
    ranges = profile.fit.get("server_profile", {}).get("ranges", {}) if profile.fit else {}
    seen = getattr(server, "seen", None)
    if not ranges or not seen or server is None:
        return []
    out = []
    share, measured = server.lowest_thread_share, profile.server.crowded_share
    if share < 1.0 and not measured:
        out.append(
            f"thread_share fell to {share:.2f} of a core; the server profile measured no crowded "
            "speed (oversubscribed_efficiency's one-factor form, an assumption)"
        )
    elif measured and share < min(measured) * 0.95:
        out.append(
            f"thread_share fell to {share:.2f} of a core; the server profile measured "
            f"{min(measured):.2f}-{max(measured):.2f} (below it the speed is read on the power law "
            "through the lowest point and (1, 1), an extrapolation)"
        )
    for name, span in ranges.items():
        value = seen.get(name)
        if value is None or len(span) != 2 or value <= float(span[1]) * 1.05:
            continue
        out.append(
            f"{name} reached {value:,.0f}; the server profile measured {float(span[0]):,.0f}-{float(span[1]):,.0f}"
            " (extrapolated)"
        )
    for text in out:
        log.debug("simulation outside the server profile: %s", text)
    return out


__all__ = ["STANDIN_SERVER", "SimResult", "cloud_standin_server", "simulate", "task_order"]
