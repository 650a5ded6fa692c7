"""How fast each configuration's live server ran when nothing else was on it, beside the
simulator's error there: a miss from the machine or a miss from the model.

A sweep records its configurations one after another, each on a fresh server under whatever the
machine was doing then; calibration takes one speed level from the C = 1 configurations
(calibration/run_drift.py). A held-out configuration whose server was slower than that level
even for a call alone on it ran on a slower machine, which no simulation of the workload can
know; one that ran at the level and still misses is the model's. This calibrates the set the
documented way (its server profile, refitted from its recorded calls, plus C = 1), then prints,
per configuration: the first-served prompt's time (alone in its batch: the other agents' first
requests wait behind it) and the median time of the calls no other call overlapped (local or
the cloud stand-in's, which shares the cores), each over what the calibrated rates give for it
alone, and the nominal simulation's suite-wall error. The figures are diagnostics: nothing here
feeds a prediction.

    .venv/bin/python bench/level_speed.py [--set calibration/reference/dev-t2]
    .venv/bin/python bench/level_speed.py --run calibration/reference/run \\
        --server-profile calibration/reference/dev-profile/server_profile.toml
"""

from __future__ import annotations

import argparse
import logging
import math
import statistics
import tempfile
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import pandas as pd

from agbench.attempt import Endpoint
from agbench.calibration import calibrate
from agbench.calibration.compared_metrics import METRICS, metric_value
from agbench.calibration.run_drift import call_log_ratios
from agbench.calibration.server_profile import refit_server_profile
from agbench.calibration.validation import simulate_pair
from agbench.sim.profiles import Profile, ServerRates
from agbench.store import RunStore

#: Calls whose start lies this close to a configuration's first call arrived together with it.
TOGETHER_S = 0.05


def alone_calls(calls: pd.DataFrame, others: pd.DataFrame) -> pd.DataFrame:
    """The ``calls`` no other call of ``others`` (every endpoint: a hybrid's cloud stand-in
    shares the cores) overlapped in time."""
    start, end = calls["t_start"].to_numpy(), (calls["t_start"] + calls["total_s"]).to_numpy()
    o_start, o_end = others["t_start"].to_numpy(), (others["t_start"] + others["total_s"]).to_numpy()
    ids, o_ids = calls["call_id"].to_numpy(), others["call_id"].to_numpy()
    keep = [
        not any(
            o_ids[j] != ids[i] and o_start[j] < end[i] and o_end[j] > start[i] for j in range(len(others))
        )
        for i in range(len(calls))
    ]
    return calls[keep]


def ratio(rows: list[dict[Hashable, Any]], rates: ServerRates, kind: int) -> float:
    """exp of the median log ratio (observed over calibrated) of one kind (0 decode, 1 prompt)."""
    logs = [lr for r in rows if (lr := call_log_ratios(r, rates)[kind]) is not None]
    return math.exp(statistics.median(logs)) if logs else math.nan


def configuration_speeds(run: Path, rates: ServerRates) -> list[dict[str, Any]]:
    calls = RunStore.open(run).tables()["model_calls"]
    local = calls[(calls["endpoint"] == Endpoint.LOCAL) & calls["prompt_ms"].notna()]
    if "error_class" in local:
        local = local[local["error_class"].isna() | (local["error_class"] == "")]
    out = []
    for (arch, conc), group in local.groupby(["architecture", "concurrency"]):
        every = calls[(calls["architecture"] == arch) & (calls["concurrency"] == conc)]
        group = group.sort_values("t_start")
        together = group[group["t_start"] - group["t_start"].min() < TOGETHER_S]
        first = together.sort_values("ttft_s").head(1).to_dict("records")
        alone = alone_calls(group, every).to_dict("records")
        out.append(
            {
                "key": (str(arch), int(conc)),
                "first_prompt": ratio(first, rates, 1),
                "alone": len(alone),
                "alone_decode": ratio(alone, rates, 0),
                "alone_prompt": ratio(alone, rates, 1),
            }
        )
    return out


def suite_errors(run: Path, profile: Path) -> dict[tuple[str, int], float]:
    pair = simulate_pair(run, profile)
    path = next(m.path for m in METRICS if m.name == "suite_wall_s")
    sim = {(c.architecture.value, c.concurrency): c for c in pair.sim.configurations}
    out = {}
    for entry in pair.live.configurations:
        key = (entry.architecture.value, entry.concurrency)
        live, simulated = metric_value(entry, path), metric_value(sim.get(key), path)
        if live and simulated is not None:
            out[key] = (simulated - live) / live * 100
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, help="a reference set with run/, run-2/ and server_profile.toml")
    parser.add_argument("--run", type=Path, action="append", help="a run directory (repeatable)")
    parser.add_argument("--server-profile", type=Path, help="with --run: its server profile")
    args = parser.parse_args()
    if args.set is None and not (args.run and args.server_profile):
        args.set = Path("calibration/reference/dev-t2")
    if args.set is not None:
        runs = [d for d in (args.set / "run", args.set / "run-2") if (d / "run.json").is_file()]
        server_profile = args.set / "server_profile.toml"
    else:
        runs, server_profile = args.run, args.server_profile
    logging.disable(logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        server = refit_server_profile(server_profile, Path(tmp) / "server_profile.toml")
        profile = calibrate(runs, Path(tmp) / "profile.toml", [1], server)
        rates = Profile.load(profile).server.rates
        if rates is None:
            raise SystemExit(f"{profile}: the calibrated profile has no server rates")
        for run in runs:
            errors = suite_errors(run, profile)
            print(f"{run}: observed / calibrated time, profile + C = 1 (1.00: the level calibration took)")
            print(
                f"{'where':>10} {'first prompt':>13} {'alone':>6} {'decode':>7} {'prompt':>7} {'suite (nominal)':>16}"
            )
            for row in configuration_speeds(run, rates):
                arch, conc = row["key"]
                error = errors.get(row["key"])
                shown = f"{error:+.1f} %" if error is not None else "-"
                print(
                    f"{arch + ' C=' + str(conc):>10} {row['first_prompt']:>13.2f} {row['alone']:>6}"
                    f" {row['alone_decode']:>7.2f} {row['alone_prompt']:>7.2f} {shown:>16}"
                )


if __name__ == "__main__":
    main()
