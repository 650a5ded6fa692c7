"""Server-level calibration and validation from open-loop load runs.

An agent sweep mixes two sources of error: the server model (how fast prompts and decodes go
under a batch, when the pool fills) and agent behaviour (turns, tools, think gaps). A load run
(``agbench load``) exercises the server alone, so fitting its rates on the lowest offered
rates and predicting the higher ones measures the server model's error by itself: the TTFT
error of an agent sweep is a server-model error when it shows up here too.

``calibrate_load`` fits ``[server.rates]`` (calibration/server_fit.py, on the calls measured
while the machine was quiet) plus the server as launched and the per-request overhead, using
only the ``fit_levels`` lowest-rate levels; ``validate_load`` replays every level of the run
through the simulated server (sim/open_loop.py) and compares per-level latency percentiles
and throughput, flagging rows at levels the profile was not fitted on as held out.
"""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import tomli_w

from agbench.calibration.harness_fit import request_overheads
from agbench.calibration.machine_load import quiet_mask
from agbench.calibration.server_fit import fit_server
from agbench.calibration.server_preset import LLAMA_SERVER_BEHAVIOUR, server_table
from agbench.calibration.validation import records_to_tables
from agbench.errors import AgbenchError
from agbench.load import LOAD_TASK_PREFIX, LoadLevel, levels_of_run
from agbench.metrics.load import load_summary
from agbench.run_meta import RunMeta
from agbench.sim.open_loop import simulate_load
from agbench.sim.profiles import Profile
from agbench.sim.scenario import load_scenario
from agbench.store import RunStore

#: The simulator's device for this machine's runs (the profile overlay supplies the rest).
DEFAULT_SCENARIO = "this-machine-smollm2"
#: Compared per level; each is a field of ``agbench.metrics.load.level_figures``.
LOAD_METRICS = ("ttft_p50_s", "ttft_p90_s", "e2e_p50_s", "e2e_p90_s", "itl_p50_s", "throughput_rps")


def _load_run(run_dir: Path) -> tuple[RunStore, RunMeta]:
    store = RunStore.open(run_dir)
    meta = store.run_meta()
    if not meta.is_load:
        raise AgbenchError(f"{run_dir} is not a load run (made by `agbench load`)")
    return store, meta


def lowest_levels(levels: list[LoadLevel], n: int) -> list[LoadLevel]:
    """The ``n`` levels with the lowest offered rate (ties: run order)."""
    if n < 1:
        raise AgbenchError(f"--fit-levels must be at least 1, got {n}")
    ranked = sorted(enumerate(levels), key=lambda il: (il[1].offered_rate, il[0]))
    return [level for _, level in ranked[:n]]


def found_a_free_slot(calls: pd.DataFrame, n_slots: int) -> pd.Series:
    """Per call: whether fewer than ``n_slots`` other requests were in flight when it was sent,
    so that llama-server started it at once. Only those calls measure the per-request
    overhead (time beyond the server's own prompt and generation timings): a call that arrived
    while every slot was busy also waited in the server's queue, which the simulator models
    itself; counting that wait as overhead would add it twice (measured on the committed load
    reference: a 87.6 s median "overhead" at 0.2 and 0.5 requests/s, where the unqueued calls'
    is a fraction of a second)."""
    start = calls["t_start"].to_numpy(float)
    end = start + calls["total_s"].to_numpy(float)
    # in flight at i's start: j started before i and had not ended yet
    in_flight = ((start[None, :] < start[:, None]) & (end[None, :] > start[:, None])).sum(axis=1)
    return pd.Series(in_flight < n_slots, index=calls.index)


def template_prefix_tokens(calls: pd.DataFrame) -> int:
    """The prefix every request shares although the load run gave it none: the chat template's
    header (SmolLM2's template adds a default system prompt), which llama-server finds in the
    slot it picks by common-prefix similarity and does not process again. Measured as the
    median cached tokens of the successful calls (30 of 256 on the committed load reference)."""
    ok = calls[(calls["error_class"].fillna("") == "") & calls["cached_tokens"].notna()]
    return int(np.median(ok["cached_tokens"].to_numpy(float))) if len(ok) else 0


def with_template_prefix(levels: list[LoadLevel], tokens: int) -> list[LoadLevel]:
    """The levels as the server saw them: a request without a prefix group of its own starts
    with the template's ``tokens`` shared tokens (one group across every request)."""
    if tokens <= 0:
        return levels
    out = []
    for level in levels:
        requests = tuple(
            r
            if r.prefix_group
            else replace(r, prefix_group="chat-template", prefix_tokens=min(tokens, r.prompt_tokens - 1))
            for r in level.requests
        )
        out.append(replace(level, requests=requests))
    return out


def fit_load_profile(run_dir: Path, fit_levels: int = 2) -> dict[str, Any]:
    """The profile overlay (TOML tables) fitted on a load run's lowest-rate levels."""
    store, meta = _load_run(run_dir)
    levels = levels_of_run(run_dir)
    chosen = lowest_levels(levels, fit_levels)
    tasks = {level.task for level in chosen}
    tables = store.tables()
    calls = tables["model_calls"]
    calls = calls[calls["task"].isin(tasks)].reset_index(drop=True)
    if calls.empty:
        raise AgbenchError(f"{run_dir}: no request recorded at levels {', '.join(sorted(tasks))}")
    settings = meta.local.servers.get("0") if meta.local is not None else None
    cpus = int(meta.host.get("cpus") or 2)
    threads = settings.threads if settings is not None else 2
    quiet = quiet_mask(calls, tables["resource_samples"], cpus, threads)
    rates, fits = fit_server(calls.assign(quiet=quiet))
    n_slots = settings.n_parallel if settings is not None else 1
    overheads = request_overheads(calls[found_a_free_slot(calls, n_slots)])
    server: dict[str, Any] = (
        server_table(settings, n_parallel=settings.n_parallel, n_ctx_per_slot=0)
        if settings is not None
        else dict(LLAMA_SERVER_BEHAVIOUR)
    )
    server["request_overhead_s"] = float(np.median(overheads)) if len(overheads) else 0.0
    if rates:
        server["rates"] = {**rates, "source": "calibrated"}
    overlay: dict[str, Any] = {
        "device": {"name": meta.device or "device", "cores": cpus, "gpu": False},
        "server": server,
        "fit": {
            "source_runs": [str(run_dir)],
            "load_levels": [level.name for level in chosen],
            "template_prefix_tokens": template_prefix_tokens(calls),
            "quiet_calls": int(quiet.sum()),
            "calls": len(calls),
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            **fits,
        },
    }
    Profile.from_dict(overlay, "calibrated load profile")  # schema check
    return overlay


def calibrate_load(run_dir: Path, output: Path, fit_levels: int = 2) -> Path:
    """Fit a profile on a load run's ``fit_levels`` lowest-rate levels and write it."""
    overlay = fit_load_profile(run_dir, fit_levels)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(tomli_w.dumps(overlay))
    return output


def _error_pct(live: float | None, sim: float | None) -> float | None:
    if live is None or sim is None or not live:
        return None
    return 100.0 * (sim - live) / live


def validate_load(profile_path: Path, run_dir: Path, out_dir: Path, scenario: str = DEFAULT_SCENARIO) -> Path:
    """Simulate every level of a live load run with a (load-)calibrated profile; writes
    ``out_dir/validation.json`` with per-metric MAPE over all and over held-out levels."""
    store, meta = _load_run(run_dir)
    levels = levels_of_run(run_dir)
    live = load_summary(store.tables(), store.meta())
    profile = load_scenario(scenario).with_profile(profile_path).profile
    fitted = set(profile.fit.get("load_levels", []))
    prefix = int(profile.fit.get("template_prefix_tokens", 0))
    records = simulate_load(
        profile, with_template_prefix(levels, prefix), device=meta.device, run_id=f"sim-{run_dir.name}"
    )
    sim_meta = {"source": "sim", "task_order": [level.task for level in levels], "options": meta.options}
    sim = load_summary(records_to_tables(records), sim_meta)
    by_level = {lv.level: lv for lv in sim.levels}
    metrics: dict[str, Any] = {}
    for name in LOAD_METRICS:
        rows: list[dict[str, Any]] = []
        for lv in live.levels:
            other = by_level.get(lv.level)
            live_value, sim_value = getattr(lv, name, None), getattr(other, name, None)
            rows.append(
                {
                    "level": lv.level,
                    "offered_rate": lv.offered_rate,
                    "live": live_value,
                    "sim": sim_value,
                    "error_pct": _error_pct(live_value, sim_value),
                    "held_out": lv.level not in fitted,
                }
            )
        errors = [abs(r["error_pct"]) for r in rows if r["error_pct"] is not None]
        held = [abs(r["error_pct"]) for r in rows if r["error_pct"] is not None and r["held_out"]]
        metrics[name] = {
            "mape": float(np.mean(errors)) if errors else None,
            "mape_held_out": float(np.mean(held)) if held else None,
            "rows": rows,
        }
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "validation.json"
    report = {
        "kind": "load",
        "run": str(run_dir),
        "profile": str(profile_path),
        "fitted_levels": sorted(fitted),
        "levels": [f"{LOAD_TASK_PREFIX}{lv.level}" for lv in live.levels],
        "metrics": metrics,
    }
    path.write_text(json.dumps(report, indent=2, default=str), encoding="utf-8")
    return path


__all__ = [
    "LOAD_METRICS",
    "calibrate_load",
    "fit_load_profile",
    "found_a_free_slot",
    "lowest_levels",
    "template_prefix_tokens",
    "validate_load",
    "with_template_prefix",
]
