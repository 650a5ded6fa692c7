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

import copy
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from agbench.calibration.compared_metrics import METRICS, metric_value
from agbench.calibration.held_out_error import held_out_reach, held_out_source
from agbench.calibration.intervals import (
    DEFAULT_DRAWS,
    LEVEL,
    METHOD,
    POINT,
    has_bootstrap,
    percentiles,
    server_draws,
)
from agbench.calibration.kv_reading import output_read_twice
from agbench.calibration.noise_floor import floor_sigmas, floor_source, widened
from agbench.calibration.scoring import (
    Outcomes,
    brier,
    modal_outcomes,
    outcome_agreement,
    outcomes_of,
    predictive_median,
    saturated,
    score_metric,
)
from agbench.calibration.server_lifetimes import run_order
from agbench.calibration.server_preset import pool_table
from agbench.calibration.server_profile import rate_value
from agbench.config import ServerSettings
from agbench.errors import AgbenchError
from agbench.hcl_sub_agent import recorded_sub_agent
from agbench.metrics import summarize
from agbench.metrics.repeats import repeats_of
from agbench.records import TABLES, arrow_schema
from agbench.results import RunSummary, ValidationReport
from agbench.run_meta import RunMeta, RunSource
from agbench.sim import Workload, load_scenario, replay_workload, simulate
from agbench.sim.kept_servers import KeptServers
from agbench.sim.plain_data import load_toml
from agbench.sim.scenario import Scenario
from agbench.status import Status
from agbench.store import RunStore
from agbench.trajectory import TrajectorySet

log = logging.getLogger(__name__)

DEFAULT_SCENARIO = "this-machine-smollm2"


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


@dataclass
class SimulatedRun:
    """One live run beside its simulation: both summaries and both sets of task outcomes, and
    the simulated trace tables (per-call comparisons, ``bench/call_overlap.py``)."""

    live: RunSummary
    sim: RunSummary
    live_outcomes: Outcomes
    sim_outcomes: Outcomes
    range_warnings: list[str]
    skipped: list[tuple[str, int]]
    sim_tables: dict[str, pd.DataFrame] = field(default_factory=dict)


def simulate_run(
    run_dir: Path, profile_path: Path, scenario: str = DEFAULT_SCENARIO, seed: int | None = None
) -> tuple[RunSummary, RunSummary]:
    """(live summary, simulated summary) of one live run directory; ``seed`` defaults to the
    live run's own (it fixes the task order)."""
    pair = simulate_pair(run_dir, profile_path, scenario, seed)
    return pair.live, pair.sim


def simulate_pair(
    run_dir: Path,
    profile_path: Path,
    scenario: str = DEFAULT_SCENARIO,
    seed: int | None = None,
    server: dict[str, Any] | None = None,
    jitter: int | None = None,
) -> SimulatedRun:
    """One live run and its simulation; ``server`` is laid over the profile's server table
    (one draw of ``server_draws``: its ``rates`` and CPU speeds), ``jitter`` is the
    timing-jitter stream (None: nominal)."""
    store = RunStore.open(run_dir)
    meta = store.run_meta()
    live_tables = store.tables()
    live = summarize(live_tables, store.meta())
    workload = replay_workload(run_trajectories(run_dir, meta))
    seed = meta.seed if seed is None else seed
    # the live run's own order (run.json): the simulation starts its tasks as it did, each
    # as often as --repeat ran it, repeat by repeat, as the live queue holds them
    order = live_order(run_dir, meta.task_order, workload, seed)
    repeats = repeats_of(store.meta())
    if order is not None:
        order = [task for _ in range(repeats) for task in order]
    records: list[Any] = []
    warnings: list[str] = []
    servers = meta.local.servers if meta.local is not None else {}
    # a sampled peak is compared with a sampled peak read the way this run's sampler read it
    read_twice = output_read_twice(live_tables)
    skipped = incomplete_configurations(live_tables["task_runs"])
    # a configuration the live run stopped in the middle of is not a prediction target: its
    # tasks ran beside others that never finished (reported under ``skipped``)
    live.configurations = [
        c for c in live.configurations if (c.architecture.value, c.concurrency) not in skipped
    ]
    # each configuration in the order it ran, from what the one before it on the same server
    # left there (a live sweep keeps a server whose settings do not change)
    by_config = {(c.architecture.value, c.concurrency): c for c in live.configurations}
    base = load_scenario(scenario).with_profile(profile_path)  # each configuration takes a copy
    kept = KeptServers()
    for use in run_order(live_tables["task_runs"], meta):
        entry = by_config.get((use.architecture, use.concurrency))
        if entry is None or use.interrupted:  # a resume came in it and restarted the servers
            kept.clear()
        if entry is None:
            continue
        conc = entry.concurrency
        sc = _configured_scenario(base, meta, servers.get(str(conc)), server, read_twice)
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
            order=order,
            jitter=jitter,
            carried=kept.carried(use.servers),
            keep_states=True,
        )
        if not use.interrupted:
            kept.keep(use.servers, result.server_states)
        records += result.records
        warnings += [f"{entry.architecture.value} C={conc}: {w}" for w in result.range_warnings]
    sim_meta = RunMeta(
        run_id=f"sim-{run_dir.name}",
        source=RunSource.SIM,
        agent_kind=workload.agent_kind,
        cloud=meta.cloud,
        options={"repeat": repeats} if repeats > 1 else {},  # every repeat counts, as live
    )
    sim_tables = records_to_tables(records)
    live_outcomes = {k: v for k, v in outcomes_of(live_tables["task_runs"]).items() if k[:2] not in skipped}
    return SimulatedRun(
        live,
        summarize(sim_tables, sim_meta.to_dict()),
        live_outcomes,
        outcomes_of(sim_tables["task_runs"]),
        warnings,
        sorted(skipped),
        sim_tables,
    )


def _configured_scenario(
    base: Scenario,
    meta: RunMeta,
    settings: ServerSettings | None,
    server: dict[str, Any] | None,
    read_twice: bool,
) -> Scenario:
    """A copy of ``base`` (the scenario with the calibrated profile) with the live level's
    server ``settings`` (slots, pool), one draw's ``server`` table laid over it, and the run's
    deadline, token caps and HCL sub-agent."""
    sc = copy.deepcopy(base)
    if settings is not None:
        for key, value in pool_table(settings).items():
            setattr(sc.profile.server, key, value)
    if server is not None and sc.profile.server.rates is not None:
        for key, value in server.get("rates", {}).items():
            if hasattr(sc.profile.server.rates, key):
                setattr(sc.profile.server.rates, key, rate_value(value))
        for key, value in server.items():
            if key != "rates" and hasattr(sc.profile.server, key):
                setattr(sc.profile.server, key, value)
    if read_twice and sc.profile.server.kv_sampled_as == "slots":
        sc.profile.server.kv_sampled_as = "slots_output_twice"
    if meta.time_limit_s:
        sc.profile.behaviour.deadline_s = float(meta.time_limit_s)
    # the run's per-endpoint token caps cut each request as they cut it live
    sc.profile.behaviour.local_max_tokens = meta.options.get("local_max_tokens") or None
    sc.profile.behaviour.cloud_max_tokens = meta.options.get("cloud_max_tokens") or None
    # HCL's sub-agent as the live run had it (a run.json from before the option: fresh)
    sc.profile.behaviour.hcl_sub_agent = recorded_sub_agent(meta.options).value
    return sc


def incomplete_configurations(task_runs: pd.DataFrame) -> set[tuple[str, int]]:
    """(architecture, concurrency) pairs with a task whose every attempt was interrupted."""
    if task_runs.empty:
        return set()

    def keys(frame: pd.DataFrame) -> list[tuple[str, int, str]]:
        return list(
            zip(
                frame["architecture"].astype(str).tolist(),
                frame["concurrency"].astype(int).tolist(),
                frame["task"].astype(str).tolist(),
                strict=True,
            )
        )

    interrupted = task_runs["status"] == Status.INTERRUPTED
    finished = set(keys(task_runs[~interrupted]))
    return {(a, c) for a, c, t in keys(task_runs[interrupted]) if (a, c, t) not in finished}


def live_order(run_dir: Path, recorded: list[str], workload: Workload, seed: int) -> list[str] | None:
    """The order the live run started its tasks in (run.json's ``task_order``), which the
    simulation of it follows, less tasks the workload has no trajectory for (logged); None where
    the run recorded no order (the seed's order then, logged). Why not recompute it from the
    seed: that assumes the selection rule and the suite of the agbench that recorded the run
    (until 2026-12-07 a subset was shuffled on its own, so a sweep whose trajectory file held
    more tasks than it ran was simulated in another order than it ran)."""
    if not recorded:
        log.warning("%s: run.json records no task order; the simulation takes seed %d's", run_dir, seed)
        return None
    known = {t.task for t in workload.tasks}
    missing = [t for t in recorded if t not in known]
    if missing:
        log.warning("%s: no trajectory for %s: not simulated", run_dir, ", ".join(missing))
    return [t for t in recorded if t in known]


def compare(
    pairs: list[tuple[RunSummary, RunSummary]],
    fit_levels: list[int],
    draws: list[list[RunSummary]] | None = None,
    noise_floor: dict[str, float] | None = None,
    held_out_error: dict[str, float] | None = None,
) -> dict[str, Any]:
    """Per metric: one row per live configuration (live, sim, signed % error, verdict) and the
    scores (scoring.py). A value missing on either side is a row that misses, never dropped.
    ``draws[i]``: the simulated summaries of pair i under each interval draw; rows then carry
    ``sim_p05``/``sim_p95``, and ``sim`` is the median of the draws and the nominal run (kept as
    ``sim_nominal``); ``noise_floor`` (dotted key -> sigma, noise_floor.py) widens each band to
    at least what two live recordings differ by, and ``held_out_error`` (dotted key -> log
    half-width, held_out_error.py) the held-out rows' to the simulator's own held-out error."""
    floor = noise_floor or {}
    reach = held_out_error or {}
    metrics: dict[str, Any] = {}
    for metric in METRICS:
        rows: list[dict[str, Any]] = []
        for i, (live, sim) in enumerate(pairs):
            sim_by_key = {(c.architecture.value, c.concurrency): c for c in sim.configurations}
            drawn = [
                {(c.architecture.value, c.concurrency): c for c in d.configurations}
                for d in (draws[i] if draws else [])
            ]
            for entry in live.configurations:
                key = (entry.architecture.value, entry.concurrency)
                live_value = metric_value(entry, metric.path)
                sim_entry = sim_by_key.get(key)
                nominal = metric_value(sim_entry, metric.path)
                drawn_values = [v for d in drawn if (v := metric_value(d.get(key), metric.path)) is not None]
                simulated = drawn_values + ([nominal] if nominal is not None else [])
                # with draws, the point is their median (scoring.predictive_median)
                sim_value = predictive_median(simulated, metric.kind) if drawn and simulated else nominal
                if live_value is None and sim_value is None:
                    continue  # the metric does not exist for this configuration on either side
                missing = live_value is None or sim_value is None
                error: float | None = None
                diff: float | None = None
                if live_value is not None and sim_value is not None:
                    diff = abs(sim_value - live_value)
                    if live_value != 0:
                        error = (sim_value - live_value) / abs(live_value) * 100.0
                row: dict[str, Any] = {
                    "run": live.run_id,
                    "architecture": key[0],
                    "concurrency": key[1],
                    "held_out": key[1] not in fit_levels,
                    "live": live_value,
                    "sim": sim_value,
                    "error_pct": error,
                    "abs_diff": diff,
                    "missing": missing,
                    "saturated": metric.name == "kv_peak_cells" and saturated(entry, sim_entry),
                }
                band = percentiles(simulated)
                if drawn and band is not None:
                    row["sim_nominal"] = nominal
                    row["sim_p05"], row["sim_p95"] = widened(
                        band,
                        sim_value,
                        floor.get(metric.key, 0.0),
                        reach.get(metric.key, 0.0) if row["held_out"] else 0.0,
                    )
                rows.append(row)
        errors = [abs(r["error_pct"]) for r in rows if r["error_pct"] is not None]
        held = [abs(r["error_pct"]) for r in rows if r["error_pct"] is not None and r["held_out"]]
        diffs = [r["abs_diff"] for r in rows if r["abs_diff"] is not None]
        metrics[metric.name] = {
            "kind": metric.kind,
            "mape": sum(errors) / len(errors) if errors else None,
            "mape_held_out": sum(held) / len(held) if held else None,
            "max_abs_diff": max(diffs, default=None),
            **score_metric(metric.name, metric.kind, rows),
            "rows": rows,
        }
    return metrics


def validate(
    profile: Path,
    run_dirs: list[Path],
    out: Path,
    scenario: str = DEFAULT_SCENARIO,
    seed: int | None = None,
    draws: int | None = None,
) -> Path:
    """Simulate each live run with the profile; write ``out/validation.json``.

    ``draws`` > 0 and a profile calibrated on a server profile: the simulation is repeated
    over that many draws of the server rates (intervals.py) for 90 % intervals, their
    coverage, and each task's failure probability (Brier score); each row's point is then the
    median of the draws and the nominal run. ``None``: ``DEFAULT_DRAWS`` where the profile has
    bootstrap data to draw from, as ``agbench sim`` does."""
    if not profile.is_file():
        raise AgbenchError(f"profile not found: {profile}")
    if out.exists() and not out.is_dir():  # before minutes of simulation, not after
        raise AgbenchError(f"--out {out} is a file; validation.json goes into a folder")
    fit = load_toml(profile).get("fit", {})
    if "load_levels" in fit:
        raise AgbenchError(
            f"{profile} was calibrated from a load run (the server alone): it holds no agent "
            "behaviour to replay a sweep with; calibrate from a sweep (agbench calibrate RUN "
            "--server-profile SERVER_PROFILE.toml --fit-concurrency 1) or validate a load run"
        )
    if draws is None:
        draws = DEFAULT_DRAWS if has_bootstrap(fit) else 0
    fit_levels = [int(c) for c in fit.get("concurrency", [])]
    held_levels: set[int] = set()
    simulated = [simulate_pair(Path(d), profile, scenario, seed) for d in run_dirs]
    for s in simulated:
        held_levels |= {c.concurrency for c in s.live.configurations} - set(fit_levels)
    server_sets = server_draws(fit, draws)
    drawn = [
        [
            simulate_pair(Path(d), profile, scenario, seed, server, jitter=k + 1)
            for k, server in enumerate(server_sets)
        ]
        for d in run_dirs
    ]
    live_outcomes: Outcomes = {}
    sim_outcomes: Outcomes = {}
    for s in simulated:
        live_outcomes.update(s.live_outcomes)
        sim_outcomes.update(s.sim_outcomes)
    report: dict[str, Any] = {
        "profile": str(profile),
        "scenario": scenario,
        "fit_concurrency": fit_levels,
        "server_profile": fit.get("server_profile", {}).get("path"),
        "runs": [str(d) for d in run_dirs],
        "metrics": compare(
            [(s.live, s.sim) for s in simulated],
            fit_levels,
            [[d.sim for d in per_run] for per_run in drawn] if server_sets else None,
            floor_sigmas(fit),
            held_out_reach(fit),
        ),
        "range_warnings": sorted({w for s in simulated for w in s.range_warnings}),
        "skipped_incomplete": sorted({f"{a} C={c}" for s in simulated for a, c in s.skipped}),
    }
    per_draw: list[Outcomes] = []
    for k in range(len(server_sets)):
        merged: Outcomes = {}
        for per_run in drawn:
            merged.update(per_run[k].sim_outcomes)
        per_draw.append(merged)
    # with draws, each pair's predicted status is the one most simulations gave (as the rows'
    # point is their median)
    predicted = modal_outcomes([sim_outcomes, *per_draw]) if per_draw else sim_outcomes
    report["outcome_agreement"] = outcome_agreement(live_outcomes, predicted, held_levels)
    if server_sets:
        report["brier"] = brier(live_outcomes, [sim_outcomes, *per_draw], held_levels)
        report["intervals"] = {
            "level": LEVEL,
            "draws": len(server_sets) + 1,
            "method": METHOD,
            "point": POINT,
            "noise_floor": floor_source(fit),
            "held_out_error": held_out_source(fit),
        }
    out.mkdir(parents=True, exist_ok=True)
    path = out / "validation.json"
    # the typed report (agbench.results.validation) is what is written: every key declared
    path.write_text(json.dumps(ValidationReport.model_validate(report).to_json_dict(), indent=1))
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
