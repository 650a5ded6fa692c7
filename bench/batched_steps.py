"""The decode step at batch 1 and 2 three ways: as the server profile measured it, as the
simulator uses it (the documented calibration: profile + the run's C = 1 calls), and as the
run's own C = 1 and 2 calls say it was (their decode fit against the batch each call saw).

Calibration takes a decode level and a prompt level from the C = 1 calls (every call there
decodes alone). Until this bench it scaled every batch size by the decode level; whether a batch
of two drifts with the machine as a batch of one does, or as the prompt work does, is what this
checks, on sets whose C = 2 calls are data (``calibrate.level_rates`` now moves the batched
steps with the prompt level where the profile measured them apart). A diagnostic of the
development sets: nothing here feeds a prediction.

    .venv/bin/python bench/batched_steps.py [SET ...]   (default: the development sets)
"""

from __future__ import annotations

import argparse
import logging
import tempfile
from pathlib import Path

from agbench.calibration import calibrate
from agbench.calibration.server_profile import measured_server_rates, refit_server_profile
from agbench.sim.plain_data import load_toml
from agbench.sim.profiles import Profile, ServerRates

#: (reference run, its server profile) pairs of the development sets.
DEFAULT_SETS = (
    ("calibration/reference/run", "calibration/reference/dev-profile/server_profile.toml"),
    ("calibration/reference/dev-t2/run", "calibration/reference/dev-t2/server_profile.toml"),
    ("calibration/reference/dev-t2/run-2", "calibration/reference/dev-t2/server_profile.toml"),
    ("calibration/reference/model", "calibration/reference/dev-profile/server_profile.toml"),
)
#: (batch, KV tokens the batch holds): one conversation, and two at the sweeps' typical contexts.
POINTS = ((1, 700), (2, 1500))


def step_ms(rates: ServerRates, batch: int, kv: int) -> float:
    return 1000 * rates.decode_step(batch, kv)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="*", help="RUN=SERVER_PROFILE pairs (default: the development sets)")
    args = parser.parse_args()
    pairs = [tuple(s.split("=", 1)) for s in args.sets] or list(DEFAULT_SETS)
    logging.disable(logging.WARNING)
    print(
        f"{'run':38s} {'level: decode':>13s} {'prompt':>6s}  "
        + "  ".join(f"{f'b={b} kv={kv}: profile / sim / run':>30s}" for b, kv in POINTS)
        + f"  {'run / profile at b=2':>20s}"
    )
    for run, server_profile in pairs:
        with tempfile.TemporaryDirectory() as tmp:
            server = refit_server_profile(Path(server_profile), Path(tmp) / "server_profile.toml")
            measured = measured_server_rates(load_toml(server)["rates"])
            documented = calibrate([Path(run)], Path(tmp) / "p1.toml", [1], server)
            own = calibrate([Path(run)], Path(tmp) / "p12.toml", [1, 2])
            simulated, observed = Profile.load(documented).server.rates, Profile.load(own).server.rates
            if simulated is None or observed is None:
                raise SystemExit(f"{run}: a calibrated profile has no server rates")
            level = load_toml(documented)["fit"]["server_profile"]["run_level"]
            cells = [
                f"{step_ms(measured, b, kv):5.1f} / {step_ms(simulated, b, kv):5.1f} / {step_ms(observed, b, kv):5.1f} ms"
                for b, kv in POINTS
            ]
            b, kv = POINTS[-1]
            print(
                f"{run:38s} {level['decode']:13.3f} {level['prefill']:6.3f}  "
                + "  ".join(f"{c:>30s}" for c in cells)
                + f"  {step_ms(observed, b, kv) / step_ms(measured, b, kv):20.3f}"
            )


if __name__ == "__main__":
    main()
