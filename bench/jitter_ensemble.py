"""The timing-jitter ensemble against the nominal simulation, row by row, on one reference set.

A deterministic simulation is one timeline; on a shared server, which of two near-simultaneous
requests is read first decides whose decode waits behind whose prompt (docs/design.md, "Several
conversations on a two-thread server"). This calibrates the set the documented way (its server
profile, refitted from its recorded calls, plus the C = 1 of every recording), simulates each
recording at the point's rates once nominally and once per jitter stream
(sim/agents/timing_jitter.py), and prints, per held-out row, the nominal error, the ensemble
mean's error and the ensemble's spread, then each metric's MAPE both ways. Development sets
only: a test set is scored by ``agbench bench fidelity``, never looked at row by row to choose.

    .venv/bin/python bench/jitter_ensemble.py [--set calibration/reference/dev-t2] [--streams 8]
    .venv/bin/python bench/jitter_ensemble.py --set calibration/reference \
        --server-profile calibration/reference/dev-profile/server_profile.toml   # run/, run-2/
"""

from __future__ import annotations

import argparse
import logging
import statistics
import tempfile
from pathlib import Path

from agbench.calibration import calibrate
from agbench.calibration.compared_metrics import METRICS, metric_value
from agbench.calibration.server_profile import refit_server_profile
from agbench.calibration.validation import SimulatedRun, simulate_pair
from agbench.results import ConfigurationSummary

SHOWN = ("suite_wall_s", "mean_completion_s_common", "ttft_p50_s")


def value(summary: list[ConfigurationSummary], key: tuple[str, int], metric: str) -> float | None:
    path = next(m.path for m in METRICS if m.name == metric)
    entry = next((c for c in summary if (c.architecture.value, c.concurrency) == key), None)
    return metric_value(entry, path)


def report(run: Path, nominal: SimulatedRun, drawn: list[SimulatedRun]) -> None:
    for metric in SHOWN:
        nominal_errors, mean_errors = [], []
        for entry in nominal.live.configurations:
            key = (entry.architecture.value, entry.concurrency)
            live = metric_value(entry, next(m.path for m in METRICS if m.name == metric))
            point = value(nominal.sim.configurations, key, metric)
            ensemble = [v for d in drawn if (v := value(d.sim.configurations, key, metric)) is not None]
            if entry.concurrency == 1 or not live or point is None or not ensemble:
                continue
            mean = statistics.fmean(ensemble)
            spread = statistics.pstdev(ensemble) / live * 100
            nominal_errors.append(abs(point - live) / live * 100)
            mean_errors.append(abs(mean - live) / live * 100)
            print(
                f"  {run.name} {metric} {key[0]} C={key[1]}: live {live:.2f}, nominal "
                f"{(point - live) / live * 100:+.1f} %, ensemble mean {(mean - live) / live * 100:+.1f} %"
                f" (spread {spread:.1f} %)"
            )
        if nominal_errors:
            print(
                f"{run.name} {metric}: MAPE nominal {statistics.fmean(nominal_errors):.1f} %, "
                f"ensemble mean {statistics.fmean(mean_errors):.1f} % over {len(mean_errors)} rows"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, default=Path("calibration/reference/dev-t2"))
    parser.add_argument("--streams", type=int, default=8)
    parser.add_argument("--server-profile", type=Path, default=None, help="default: SET/server_profile.toml")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    runs = [d for d in (args.set / "run", args.set / "run-2") if (d / "run.json").is_file()]
    with tempfile.TemporaryDirectory() as tmp:
        own = args.server_profile or args.set / "server_profile.toml"
        server = refit_server_profile(own, Path(tmp) / "server_profile.toml")
        profile = calibrate(runs, Path(tmp) / "profile.toml", [1], server)
        print(f"{args.set}: profile + C = 1 of {len(runs)} recording(s), {args.streams} jitter streams")
        for run in runs:
            nominal = simulate_pair(run, profile)
            drawn = [simulate_pair(run, profile, jitter=k) for k in range(1, args.streams + 1)]
            report(run, nominal, drawn)


if __name__ == "__main__":
    main()
