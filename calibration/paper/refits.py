"""Refits: the paper's C = 1 fit made again on other task draws, the other plausible fits.

The paper publishes aggregate C = 1 figures only, so nothing can be resampled and refitted
task by task. What it leaves open is which 60 tasks it ran: the shipped fit is the synthetic
workload of seed 0 (its tasks' turns, tokens, tool times, difficulties and order) with the
behaviour values that make its C = 1 simulation reproduce the published figures. Another seed
draws another 60 tasks from the same distributions; ``agbench paper fit --seed K`` fits the
same values on them. Where that refit also reproduces every bounded C = 1 figure within its
bound, the published figures cannot tell it from the shipped fit, and how far its C = 2, 4, 8
predictions land from the shipped ones is the uncertainty the C = 1 fit leaves.

The refits ship beside the shipped fit, one folder each (``paper-refits/seed-K/``: the
workload and both devices' overlays, as ``agbench paper fit --seed K --out`` writes them;
``calibration/paper/record_refits.sh`` makes them). They are judged again wherever they are
used (``ranges.plausible``): the simulator may have changed since one was written, and a refit
that no longer reproduces the C = 1 figures is counted and left out, never used quietly.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agbench.calibration.paper.params import SEED
from agbench.calibration.paper.targets import DEVICES
from agbench.calibration.paper.write import SHIPPED_DIR, WORKLOAD_FILE, overlay_file
from agbench.errors import AgbenchError
from agbench.sim.profiles import Profile
from agbench.sim.workloads.synthetic import SyntheticParams

REFIT_DIR = SHIPPED_DIR / "paper-refits"


@dataclass(frozen=True)
class Refit:
    """One fit of the paper's C = 1 figures: a workload, its seed and each device's overlay."""

    seed: int
    params: SyntheticParams
    #: scenario name -> its fitted overlay (cloud cache hit, re-delegation, exposure), as parsed
    overlays: dict[str, dict[str, Any]]

    def profile(self, scenario: str, base: Profile) -> Profile:
        """``base`` (the scenario's profile) with this fit's overlay laid over it."""
        return base.merged(self.overlays[scenario])


def read_refit(folder: Path) -> Refit:
    """The fit written into ``folder`` (``agbench paper fit --out``); its seed is the one its
    overlays record (``[fit.paper_c1] seed``; the shipped fit's files predate it: seed 0)."""
    workload = folder / WORKLOAD_FILE
    if not workload.is_file():
        raise AgbenchError(f"{folder}: no {WORKLOAD_FILE} (write one with agbench paper fit --out)")
    overlays: dict[str, dict[str, Any]] = {}
    for scenario in DEVICES:
        path = folder / overlay_file(scenario)
        try:
            overlays[scenario] = tomllib.loads(path.read_text())
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise AgbenchError(f"{path}: cannot read the fitted overlay ({exc})") from None
    seeds = {int(o.get("fit", {}).get("paper_c1", {}).get("seed", SEED)) for o in overlays.values()}
    if len(seeds) != 1:
        raise AgbenchError(f"{folder}: the overlays were fitted on different seeds {sorted(seeds)}")
    return Refit(seeds.pop(), SyntheticParams.load(workload), overlays)


def shipped_refits(root: Path = REFIT_DIR) -> list[Refit]:
    """Every refit under ``root``, by seed; none when the folder is absent."""
    if not root.is_dir():
        return []
    refits = [read_refit(d) for d in sorted(root.iterdir()) if d.is_dir()]
    return sorted(refits, key=lambda r: r.seed)


__all__ = ["REFIT_DIR", "Refit", "read_refit", "shipped_refits"]
