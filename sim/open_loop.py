"""Open-loop requests through the simulated server: ``agbench sim --requests TRACE | --rate R``.

The same levels a live ``agbench load`` run sends (``agbench/load.py``) go through the same
``LocalServer`` entity the agents use, with the same slot policy, KV pool and rates, and come
out as the same tables (``model_calls``, ``task_runs`` per level, ``server_samples``). So the
server model can be validated *alone* against a live load run, before any agent behaviour is
added on top. Levels run one after the other on one server, as live: a later level starts with
whatever the earlier ones left in the slots' prefix caches.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any

import simpy

from agbench.attempt import AgentLabel, AttemptCounters, AttemptKey, Endpoint, RunScope
from agbench.errors import AgbenchError
from agbench.load import LoadLevel, RequestSpec, level_to_dict, load_configuration
from agbench.records import ModelCall
from agbench.run_meta import RunMeta, RunSource
from agbench.sim.entities.cpu import ProcessorSharingCPU
from agbench.sim.entities.local_server import LocalRequest, LocalServer
from agbench.sim.entities.server_sampling import sample_recorder
from agbench.sim.profiles import Profile
from agbench.sim.scenario import Scenario, load_scenario
from agbench.status import Status
from agbench.store import RunStore


def _call_row(key: AttemptKey, index: int, req: LocalRequest, t0: float) -> ModelCall:
    """A model_calls row as the live load generator would have recorded it for this request."""
    return ModelCall(
        **key.ids(),
        agent=AgentLabel.LOCAL,
        endpoint=Endpoint.LOCAL,
        call_id=f"r{index}",
        t_start=t0,
        **req.call_figures(t0, t0),
    )


def simulate_load(
    profile: Profile,
    levels: Sequence[LoadLevel],
    *,
    device: str | None = None,
    run_id: str = "sim-load",
    sample_interval_s: float = 0.5,
) -> list[Any]:
    """Every record of a simulated load run (deterministic: arrivals are given, not drawn)."""
    device_name = device or profile.device.name
    config = load_configuration(device_name)
    scope = RunScope(run_id, config)
    env = simpy.Environment()
    cpu = ProcessorSharingCPU(env, profile.device.cores)
    records: list[Any] = []

    sample = sample_recorder(env, scope.ids(), records)

    # Open loop has no concurrency of its own: the server has the slots its settings give it.
    slots = profile.server.n_parallel if profile.server.n_parallel > 0 else 1
    server = LocalServer.on_device(
        env, profile, slots, cpu, sample_hook=sample, sample_interval_s=sample_interval_s
    )
    overhead = profile.server.request_overhead_s

    def request(
        key: AttemptKey, index: int, spec: RequestSpec, t_level: float, sink: list[ModelCall]
    ) -> Generator[simpy.Event, Any, None]:
        yield env.timeout(max(0.0, t_level + spec.t - env.now))
        t0 = env.now
        if overhead > 0:
            yield env.timeout(overhead)
        conv = (key.task, index)
        sys_key: object = ("prefix", spec.prefix_group) if spec.prefix_group else conv
        req = server.submit(conv, sys_key, spec.prefix_tokens, spec.prompt_tokens, spec.output_tokens)
        yield req.done
        sink.append(_call_row(key, index, req, t0))

    def run_levels() -> Generator[simpy.Event, Any, None]:
        for level in levels:
            key = scope.attempt(level.task, 1)
            t_level = env.now
            rows: list[ModelCall] = []
            procs = [env.process(request(key, i, r, t_level, rows)) for i, r in enumerate(level.requests)]
            yield simpy.AllOf(env, procs)
            counters = AttemptCounters()
            for row in sorted(rows, key=lambda r: r.t_start):
                counters.add_model_call(row)
                counters.add_model_wait(Endpoint.LOCAL, row.total_s)
                records.append(row)
            errors = sum(1 for r in rows if r.error_class)
            records.append(
                counters.task_run(
                    key,
                    agent_kind="sim-load",
                    category="load",
                    difficulty="",
                    t_start=t_level,
                    t_end=env.now,
                    status=Status.SUCCESS if errors == 0 else Status.EXECUTION_ERROR,
                    reason=f"{len(rows) - errors} ok, {errors} errors, 0 cancelled",
                )
            )

    env.process(run_levels())
    env.run()
    sample(server)
    return records


__all__ = ["simulate_load"]


def run_load_sim(
    scenario: str | Path | Scenario,
    levels: Sequence[LoadLevel],
    out_dir: Path,
    *,
    profile: Path | None = None,
    seed: int = 0,
) -> Path:
    """Simulate a load run (the scenario's device, optionally a calibrated profile laid over it)
    and write it as a run directory with the load report."""
    from agbench.report.load import write_load_report  # lazy: matplotlib, only for the report

    sc = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
    if profile is not None:
        sc = sc.with_profile(Path(profile))
    if not levels:
        raise AgbenchError("no load level given")
    if (out_dir / "run.json").exists():  # a simulation is not resumed: it runs again elsewhere
        raise AgbenchError(f"{out_dir} already holds a run; choose another --out")
    records = simulate_load(sc.profile, levels, run_id=out_dir.name)
    meta = RunMeta(
        run_id=out_dir.name,
        source=RunSource.SIM,
        device=sc.profile.device.name,
        agent_kind="sim-load",
        seed=seed,
        architectures=["LO"],
        concurrency=[0],
        task_order=[level.task for level in levels],
        labels=["simulated"],
        scenario=sc.name,
        options={"levels": [level_to_dict(level) for level in levels]},
    )
    store = RunStore.create(out_dir, meta)
    store.append_records(records)
    store.close_writers()
    store.compact()
    write_load_report(out_dir)
    return out_dir
