"""How well the decode step at batch sizes a server profile did not measure is read from the
sizes it did: a straight line between measured sizes (the chord) against a power law through
them (straight in log step against log batch, what the simulator reads).

``profile-server --quick`` measured batch 1 and ``--parallel`` only (until this bench showed
why not), so a two- to six-agent sweep ran on steps read between those two. This refits each
full-grid profile's decode table (``fit_decode``) from its recorded calls three times: on every
batch size, on batch 1 and the largest only (the old quick grid), and on 1, 2, 4 and the
largest (the quick grid now), and prints, for each size left out, the step the reduced table
gives over the step the full table fitted (both at the profile's first context, the KV term
included), the chord and the power law side by side.

    .venv/bin/python bench/decode_batch_table.py [PROFILE_DIR ...]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agbench.calibration.profile_calls import read_calls
from agbench.calibration.server_profile import fit_decode, measured_server_rates
from agbench.load import PROFILE_CALLS_FILE
from agbench.sim.profiles import ServerRates, table_at

DEFAULT_PROFILES = ("calibration/reference/dev-profile", "calibration/reference/dev-t2/profile")


def table(calls: list[dict], sizes: set[int] | None) -> ServerRates:
    kept = [c for c in calls if c["probe"] != "decode" or sizes is None or c["params"]["batch"] in sizes]
    rates, _ = fit_decode(kept)
    return measured_server_rates(rates)


def chord(rates: ServerRates, batch: int, kv: float) -> float:
    """The step as a straight line between measured sizes would read it."""
    xs = rates.decode_table_batch
    return (
        table_at(xs, rates.decode_table_step_s, batch, rates.decode_step_per_seq_s)
        + rates.kv_slope(batch) * kv
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("profiles", nargs="*", default=list(DEFAULT_PROFILES))
    args = parser.parse_args()
    for name in args.profiles:
        calls = read_calls(Path(name) / PROFILE_CALLS_FILE)
        decode = [c for c in calls if c["probe"] == "decode"]
        sizes = sorted({int(c["params"]["batch"]) for c in decode})
        context = min(int(c["params"]["ctx"]) for c in decode)
        full = table(calls, None)
        print(f"{name}: batch sizes measured {sizes}, context {context}; reduced / full step")
        for label, kept in (("1 and largest", {1, sizes[-1]}), ("1, 2, 4, largest", {1, 2, 4, sizes[-1]})):
            reduced = table(calls, kept)
            cells = []
            for b in (s for s in sizes if s not in kept):
                kv = b * context
                truth = full.decode_step(b, kv)
                cells.append(
                    f"b={b}: chord {chord(reduced, b, kv) / truth - 1:+.1%}, power {reduced.decode_step(b, kv) / truth - 1:+.1%}"
                )
            print(f"  kept {label:17s} " + ("; ".join(cells) or "nothing left out"))


if __name__ == "__main__":
    main()
