"""``agbench validate``: simulate what each live run did and compare, metric by metric.

For every configuration of every live run, the simulator replays the *same* trajectories on
the *same* server settings (slots, KV pool, unified or not, per concurrency level, from the
run's metadata) with the calibrated profile laid over the scenario, and both sides go through
one summary code path (``agbench.metrics.summarize``). Rows at concurrency levels the profile
was not fitted on are marked ``held_out``: those are the predictions that count. The simulator
starts the tasks in the order the live run did because both take it from the core's one
selection rule (``agbench.task.select_tasks``) with the run's seed; a run whose recorded order
the simulator cannot reproduce (its trajectory file holds other tasks than its suite did) is
reported, not silently re-ordered.
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from agbench.errors import AgbenchError
from agbench.hcl_sub_agent import recorded_sub_agent
from agbench.metrics import summarize
from agbench.records import TABLES, arrow_schema
from agbench.results import ConfigurationSummary, RunSummary
from agbench.run_meta import RunMeta, RunSource
from agbench.sim import Workload, load_scenario, replay_workload, simulate
from agbench.sim.profiles import load_toml
from agbench.status import Status
from agbench.store import RunStore
from agbench.trajectory import TrajectorySet

log = logging.getLogger(__name__)

DEFAULT_SCENARIO = "this-machine-smollm2"


@dataclass(frozen=True)
class Metric:
    """A metric compared between live and simulated runs, and how to read it from a summary."""

    name: str
    path: tuple[str, ...]
    kind: str = "relative"  # "relative": % error; "count": absolute difference matters


METRICS: tuple[Metric, ...] = (
    Metric("suite_wall_s", ("suite_wall_s",)),
    Metric("mean_completion_s_common", ("mean_completion_s_common",)),
    Metric("goodput_per_h", ("goodput_per_h",)),
    Metric(Status.SUCCESS.value, (Status.SUCCESS.value,), "count"),
    Metric(Status.CONTEXT_LIMIT.value, ("failures", Status.CONTEXT_LIMIT.value), "count"),
    Metric("ttft_p50_s", ("ttft_p50_s",)),
    Metric("ttft_p95_s", ("ttft_p95_s",)),
    Metric("output_tok_s_p50", ("output_tok_s_p50",)),
    Metric("kv_peak_cells", ("kv_peak_cells",)),
    Metric("local_model_s", ("time_breakdown_s", "local_model")),
    Metric("cloud_model_s", ("time_breakdown_s", "cloud_model")),
    Metric("tools_s", ("time_breakdown_s", "tools")),
    Metric("cloud_cost_usd", ("cloud_cost_usd",)),
)


def _get(entry: ConfigurationSummary, path: tuple[str, ...]) -> float | None:
    value: Any = entry
    for key in path:  # model fields, then keys of a figure table (failures by status)
        value = value.get(key) if isinstance(value, dict) else getattr(value, key, None)
    if value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def records_to_tables(records: list[Any]) -> dict[str, pd.DataFrame]:
    """In-memory records as the trace tables a run directory would hold."""
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in TABLES}
    for rec in records:
        rows[rec.TABLE].append(rec.__dict__)
    return {
        name: pa.Table.from_pylist(data, schema=arrow_schema(name)).to_pandas() for name, data in rows.items()
    }


def run_trajectories(run_dir: Path, meta: RunMeta | dict[str, Any]) -> TrajectorySet:
    """The trajectory set a replay run followed (copied into the run, or named in its options)."""
    if isinstance(meta, dict):
        meta = RunMeta.from_dict(meta)
    candidates = [run_dir / "trajectories.jsonl"]
    named = meta.options.get("trajectories")
    if named:
        candidates += [Path(named), run_dir / Path(named).name]
    for path in candidates:
        if path.is_file():
            return TrajectorySet.load(path)
    raise AgbenchError(
        f"{run_dir}: no trajectories to replay (validation needs a replay-agent run whose "
        "trajectories.jsonl is in the run directory)"
    )


def simulate_run(
    run_dir: Path, profile_path: Path, scenario: str = DEFAULT_SCENARIO, seed: int | None = None
) -> tuple[RunSummary, RunSummary]:
    """(live summary, simulated summary) of one live run directory; ``seed`` defaults to the
    live run's own (it fixes the task order)."""
    store = RunStore.open(run_dir)
    meta = store.run_meta()
    live_tables = store.tables()
    live = summarize(live_tables, store.meta())
    workload = replay_workload(run_trajectories(run_dir, meta))
    seed = meta.seed if seed is None else seed
    check_task_order(run_dir, meta.task_order, workload, seed)
    records: list[Any] = []
    servers = meta.local.servers if meta.local is not None else {}
    for entry in live.configurations:
        conc = entry.concurrency
        sc = load_scenario(scenario).with_profile(profile_path)
        settings = servers.get(str(conc))
        if settings is not None:
            sc.profile.server.n_ctx = settings.n_ctx
            sc.profile.server.n_ctx_per_slot = 0  # the live run's own pool, as launched
            sc.profile.server.n_parallel = settings.n_parallel
            sc.profile.server.kv_unified = settings.kv_unified
        if meta.time_limit_s:
            sc.profile.behaviour.deadline_s = float(meta.time_limit_s)
        # HCL's sub-agent as the live run had it (a run.json from before the option: fresh)
        sc.profile.behaviour.hcl_sub_agent = recorded_sub_agent(meta.options).value
        runs = live_tables["task_runs"]
        mine = runs[(runs["concurrency"] == conc) & (runs["architecture"] == entry.architecture.value)]
        ran = {str(t) for t in mine[mine["status"] != Status.INTERRUPTED]["task"]}
        result = simulate(
            sc.profile,
            entry.architecture.value,
            conc,
            seed,
            workload,
            device=entry.device,
            run_id=f"sim-{run_dir.name}",
            # the live monitors' interval: a sampled peak is compared with a sampled peak
            sample_interval_s=float(meta.options.get("sample_interval_s") or 0.5),
            only=ran,
        )
        records += result.records
    sim_meta = RunMeta(
        run_id=f"sim-{run_dir.name}", source=RunSource.SIM, agent_kind=workload.agent_kind, cloud=meta.cloud
    )
    return live, summarize(records_to_tables(records), sim_meta.to_dict())


def check_task_order(run_dir: Path, live_order: list[str], workload: Workload, seed: int) -> bool:
    """Whether the simulator starts the run's tasks in the order the live run did (logged
    when not: completion-order figures such as suite wall time may then differ)."""
    known = {t.task for t in workload.tasks}
    live = [t for t in live_order if t in known]
    simulated = [t.task for t in workload.run_order(seed, set(live))]
    if live and simulated != live:
        log.warning(
            "%s: the simulator's task order (seed %d) differs from the live run's: %s vs %s",
            run_dir,
            seed,
            simulated,
            live,
        )
        return False
    return True


def compare(pairs: list[tuple[RunSummary, RunSummary]], fit_levels: list[int]) -> dict[str, Any]:
    """Per metric: one row per configuration (live, sim, signed % error) and the MAPE."""
    metrics: dict[str, Any] = {}
    for metric in METRICS:
        rows: list[dict[str, Any]] = []
        for live, sim in pairs:
            sim_by_key = {(c.architecture.value, c.concurrency): c for c in sim.configurations}
            for entry in live.configurations:
                key = (entry.architecture.value, entry.concurrency)
                live_value = _get(entry, metric.path)
                sim_value = _get(sim_by_key[key], metric.path) if key in sim_by_key else None
                if live_value is None or sim_value is None:
                    continue
                error = (sim_value - live_value) / abs(live_value) * 100.0 if live_value != 0 else None
                rows.append(
                    {
                        "run": live.run_id,
                        "architecture": key[0],
                        "concurrency": key[1],
                        "held_out": key[1] not in fit_levels,
                        "live": live_value,
                        "sim": sim_value,
                        "error_pct": error,
                        "abs_diff": abs(sim_value - live_value),
                    }
                )
        errors = [abs(r["error_pct"]) for r in rows if r["error_pct"] is not None]
        held = [abs(r["error_pct"]) for r in rows if r["error_pct"] is not None and r["held_out"]]
        metrics[metric.name] = {
            "kind": metric.kind,
            "mape": sum(errors) / len(errors) if errors else None,
            "mape_held_out": sum(held) / len(held) if held else None,
            "max_abs_diff": max((r["abs_diff"] for r in rows), default=None),
            "rows": rows,
        }
    return metrics


def validate(
    profile: Path, run_dirs: list[Path], out: Path, scenario: str = DEFAULT_SCENARIO, seed: int | None = None
) -> Path:
    """Simulate each live run with the profile; write ``out/validation.json``."""
    if not profile.is_file():
        raise AgbenchError(f"profile not found: {profile}")
    fit = load_toml(profile).get("fit", {})
    fit_levels = [int(c) for c in fit.get("concurrency", [])]
    pairs = [simulate_run(Path(d), profile, scenario, seed) for d in run_dirs]
    report = {
        "profile": str(profile),
        "scenario": scenario,
        "fit_concurrency": fit_levels,
        "runs": [str(d) for d in run_dirs],
        "metrics": compare(pairs, fit_levels),
    }
    out.mkdir(parents=True, exist_ok=True)
    path = out / "validation.json"
    path.write_text(json.dumps(report, indent=1))
    _log_table(report)
    return path


def _log_table(report: dict[str, Any]) -> None:
    for name, entry in report["metrics"].items():
        held, every = entry["mape_held_out"], entry["mape"]
        if every is not None:
            log.info(
                "%-26s MAPE %6.1f%% all, %s held-out, max |diff| %.3g",
                name,
                every,
                "-" if held is None else f"{held:.1f}%",
                entry["max_abs_diff"],
            )
