"""The held-out error measured on the development recordings, and its coverage leave-one-set-out.

Every development sweep that has a server profile is calibrated as the documented path does
(``agbench calibrate RUN [RUN-2] --server-profile P --fit-concurrency 1``, but without a
held-out error in the profile) and validated with draws, on its first recording and, where it
was recorded twice, on the repeat. From those reports:

- the held-out error over all of them (calibration/held_out_error.py), the figure
  ``agbench calibrate`` ships (``--write FILE`` writes it);
- per set, the 90 % coverage of its held-out timing rows (mean completion, suite wall, TTFT
  p50) with bands widened to the noise floor only, and with the held-out error measured on the
  *other* sets: a score of the method on recordings its figure was not measured on.

    .venv/bin/python bench/held_out_coverage.py [--draws 10] [--out DIR] [--write FILE]
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
from pathlib import Path

from agbench.calibration import calibrate, validate
from agbench.calibration.fidelity_scoring import WORST_ROW_METRICS
from agbench.calibration.held_out_error import measure, write
from agbench.calibration.noise_floor import widened
from agbench.calibration.server_profile import recorded_calls, refit_server_profile

REFERENCE = Path("calibration/reference")
#: set -> (sweep, its repeat or None, its server profile), as the development set holds them
SETS: dict[str, list[tuple[str, str | None, str]]] = {
    "development": [
        ("run", "run-2", "dev-profile/server_profile.toml"),
        ("model", None, "dev-profile/server_profile.toml"),
    ],
    "dev-t2": [("dev-t2/run", "dev-t2/run-2", "dev-t2/server_profile.toml")],
    "dev-pool8192": [("dev-pool8192/run", "dev-pool8192/run-2", "dev-pool8192/server_profile.toml")],
    "dev-t2-placement": [
        ("dev-t2-placement/run-free", None, "dev-t2-placement/profile-free/server_profile.toml"),
        ("dev-t2-placement/run-strict", None, "dev-t2-placement/profile-strict/server_profile.toml"),
    ],
}


def reports_of(name: str, out: Path, draws: int) -> list[dict]:
    """The set's validation reports (first recording, then the repeat where there is one)."""
    reports = []
    for i, (run, repeat, profile) in enumerate(SETS[name]):
        where = out / name / str(i)
        server = REFERENCE / profile
        if recorded_calls(server) is not None:  # as agbench bench fidelity reads a profile
            server = refit_server_profile(server, where / "server_profile.toml")
        runs = [REFERENCE / run, *([REFERENCE / repeat] if repeat else [])]
        fitted = where / "profile.toml"
        calibrate(runs, fitted, concurrency=[1], server_profile=server, held_out_error=None)
        for scored in runs:
            path = validate(fitted, [scored], where / scored.name, draws=draws)
            reports.append(json.loads(path.read_text()))
    return reports


def coverage(reports: list[dict], reach: dict[str, float]) -> tuple[int, int]:
    """Held-out timing rows inside their band, widened to ``reach`` (dotted key = metric name
    for these three figures), and the rows with a band."""
    inside = rows = 0
    for report in reports:
        for metric in WORST_ROW_METRICS:
            for row in report["metrics"][metric]["rows"]:
                if not row["held_out"] or row.get("sim_p05") is None or row["live"] is None:
                    continue
                lo, hi = widened((row["sim_p05"], row["sim_p95"]), row["sim"], 0.0, reach.get(metric, 0.0))
                rows += 1
                inside += lo <= row["live"] <= hi
    return inside, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--draws", type=int, default=10)
    parser.add_argument("--out", type=Path, default=None, help="keep the profiles and reports here")
    parser.add_argument(
        "--write", type=Path, default=None, help="write the held-out error over every set here"
    )
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="agbench-held-out-"))
    per_set = {name: reports_of(name, out, args.draws) for name in SETS}
    every = [r for reports in per_set.values() for r in reports]
    measured = measure(every, [r["runs"][0] for r in every])
    print(f"held-out error over {len(every)} development reports (x/ per figure, rows):")
    for key, reach in measured["reach"].items():
        print(f"  {key:32s} x/ {math.exp(reach):.3f}  ({measured['rows'][key]} rows)")
    if args.write:
        write(measured, args.write, f"bench/held_out_coverage.py --draws {args.draws} --write {args.write}")
        print(f"written: {args.write}")
    print(
        "\n90 % coverage of held-out timing rows: noise floor only -> with the held-out error of the other sets"
    )
    totals = [0, 0, 0]
    for name, reports in per_set.items():
        others = measure([r for other, rs in per_set.items() if other != name for r in rs])["reach"]
        before, rows = coverage(reports, {})
        after, _ = coverage(reports, others)
        totals = [totals[0] + before, totals[1] + after, totals[2] + rows]
        reach = ", ".join(f"x/ {math.exp(others.get(m, 0.0)):.2f}" for m in WORST_ROW_METRICS)
        print(f"  {name:18s} {before:3d} -> {after:3d} of {rows:3d}   (other sets: {reach})")
    before, after, rows = totals
    print(
        f"  {'all':18s} {before:3d} -> {after:3d} of {rows:3d}   ({before / rows:.0%} -> {after / rows:.0%})"
    )


if __name__ == "__main__":
    main()
