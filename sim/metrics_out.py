"""Simulated runs as run directories: the same tables and reports as a live run.

Records go into an ``agbench.store.RunStore`` in bulk (``append_records``: columnar parts,
no journal lines), then compacted, so ``agbench report`` and validation read simulated and
live runs through one code path. ``run.json`` is the core's :class:`~agbench.run_meta.RunMeta`
(the shape live runs write) with ``source = sim``, the agent kind, the task order the
simulator ran, and the simulated device (``server``, ``profile``, ``roofline``, ``sim``).
"""

from __future__ import annotations

import logging
import time
import warnings
from pathlib import Path
from typing import Any

from agbench.config import CloudSettings, PriceTable
from agbench.run_meta import RunMeta, RunSource
from agbench.sim.engine import SimResult
from agbench.sim.predictors.roofline import Roofline
from agbench.sim.scenario import Scenario
from agbench.store import RunStore

log = logging.getLogger(__name__)


def run_meta(
    scenario: Scenario, results: list[SimResult], agent_kind: str, seed: int, extra: dict[str, Any]
) -> RunMeta:
    """The run's ``run.json``; ``extra`` keys (``run_id`` apart) are kept as they are."""
    profile = scenario.profile
    prices = profile.cloud.prices
    return RunMeta(
        run_id=str(extra.get("run_id", "")),
        source=RunSource.SIM,
        device=profile.device.name,
        agent_kind=agent_kind,
        seed=seed,
        architectures=sorted({r.architecture for r in results}),
        concurrency=sorted({r.concurrency for r in results}),
        task_order=results[0].task_order if results else [],
        labels=["simulated"],
        cloud=CloudSettings(
            model=profile.cloud.name,
            prices=PriceTable(
                cached_input_per_m=prices.cached_input_per_m,
                uncached_input_per_m=prices.uncached_input_per_m,
                output_per_m=prices.output_per_m,
            ),
        ),
        scenario=scenario.name,
        scenario_file=str(scenario.path) if scenario.path else "",
        server={
            "model": profile.model.name,
            "n_ctx": profile.server.n_ctx,
            "n_ctx_per_slot": profile.server.n_ctx_per_slot,
            "n_parallel": profile.server.n_parallel,
            "kv_unified": profile.server.kv_unified,
            "rates_source": profile.server.rates.source if profile.server.rates else "roofline",
        },
        sim={
            "events": sum(r.events for r in results),
            "wall_clock_s": sum(r.wall_clock_s for r in results),
            "simulated_s": sum(r.suite_wall_s for r in results),
            "kv_peak_tokens": {f"{r.architecture}|{r.concurrency}": r.kv_peak_tokens for r in results},
        },
        profile=profile.to_dict(),
        roofline=Roofline(profile.device, profile.model, profile.server).assumptions(
            max(scenario.concurrency)
        ),
        extra={k: v for k, v in extra.items() if k != "run_id"},
    )


def write_run(
    out_dir: Path,
    scenario: Scenario,
    results: list[SimResult],
    agent_kind: str,
    seed: int,
    extra_files: dict[str, str] | None = None,
    **extra: Any,
) -> Path:
    """Write the records of ``results`` as one run directory and its reports; returns it.
    ``extra_files`` (name -> text) are written beside the tables before the reports, which
    read them."""
    run_id = extra.pop("run_id", None) or out_dir.name
    store = RunStore.create(
        out_dir, run_meta(scenario, results, agent_kind, seed, {"run_id": run_id, **extra})
    )
    records = [rec for result in results for rec in result.records]
    for rec in records:
        rec.run_id = run_id
    store.append_records(records)
    store.compact()
    store.update_meta(finished=time.time())
    for name, text in (extra_files or {}).items():
        (out_dir / name).write_text(text, encoding="utf-8")
    write_reports_if_available(out_dir)
    return out_dir


def write_reports_if_available(run_dir: Path) -> None:
    try:
        from agbench.report import write_reports
    except ImportError as exc:  # the report package is optional for the simulator itself
        warnings.warn(f"agbench.report is not importable ({exc}); reports not written", stacklevel=2)
        return
    write_reports([run_dir])


__all__ = ["run_meta", "write_reports_if_available", "write_run"]
