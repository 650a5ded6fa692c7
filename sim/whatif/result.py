"""What a what-if search returns: every point's result, the front, and the front's intervals.

Why a module of its own: the search (search.py) builds it and the intervals (intervals.py)
redraw its front, and each needs the other's types; kept here, below both, neither imports
the other's module for them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agbench.sim.whatif.evaluate import PointResult
from agbench.sim.whatif.spec import WhatIfSpec


@dataclass
class FrontIntervals:
    """The front's objectives over the draws, and whether the answer holds in every draw."""

    draws: int
    kinds: dict[str, str]  # device scenario -> calibrated | assumptions | none
    bands: dict[int, dict[str, tuple[float, float]]] = field(
        default_factory=dict
    )  # result index -> obj -> (p05, p95)
    answer: int | None = None  # result index of the front's best point on the first objective
    flips: dict[int, int] = field(default_factory=dict)  # result index -> draws where it beat the answer
    flipped_draws: int = 0  # draws in which some other front point beat the answer
    tied_draws: int = 0  # draws in which none beat it but one matched it (the choice is a tie)
    method: str = ""

    def to_dict(self, result: WhatIfResult) -> dict[str, Any]:
        label = {i: result.results[i].point.label for i in self.bands}
        return {
            "level": 0.9,
            "draws": self.draws,
            "kinds": self.kinds,
            "method": self.method,
            "answer": label.get(self.answer, "") if self.answer is not None else "",
            "flipped_draws": self.flipped_draws,
            "tied_draws": self.tied_draws,
            "flips": {label[i]: n for i, n in self.flips.items()},
            "bands": {label[i]: {o: list(b) for o, b in bands.items()} for i, bands in self.bands.items()},
        }


@dataclass
class WhatIfResult:
    spec: WhatIfSpec
    results: list[PointResult]
    front: list[int]  # indices into results (simulated points only)
    wall_s: float = 0.0
    where: str = "local"
    devices: dict[str, str] = field(default_factory=dict)  # spec device -> scenario's device name
    intervals: FrontIntervals | None = None  # the front over draws (whatif/intervals.py)

    @property
    def simulated(self) -> list[PointResult]:
        return [r for r in self.results if not r.refused]

    @property
    def refused(self) -> list[PointResult]:
        return [r for r in self.results if r.refused]


__all__ = ["FrontIntervals", "WhatIfResult"]
