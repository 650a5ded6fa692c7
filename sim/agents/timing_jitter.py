"""Timing jitter: the harness's and tools' times drawn around their measured means.

A simulation with every gap, tool and request overhead at its mean is one deterministic
timeline. On a shared server that is a knife edge: when two agents' requests arrive within a
few milliseconds, which one llama-server reads first decides whose decode later waits behind
whose prompt batch, and that pattern then repeats for the rest of the pair's tasks (design.md,
"Several conversations on a two-thread server"). Live, those times vary call by call (at
C = 1 a turn gap has a coefficient of variation of 0.4-0.6, a tool call's wall time varies
across tasks), so a recording is one draw of many possible interleavings. A jittered run
draws each such time around its fitted mean, with the spread calibration measured at its fit
levels (``turn_gap_cv``, ``request_overhead_cv``, ``wall_cv_by_tool``); an ensemble of them
is what a prediction is the centre of.

The draw is a lognormal factor with mean 1 and the measured coefficient of variation: times
stay positive, skewed as measured gaps are, and the mean the suite adds up is unchanged.
Each task attempt has a stream of its own, keyed by the run's seed, the task, the architecture
and the jitter stream's number, so that one task's draws never shift another's and stream
``k`` is the same simulation every time.
"""

from __future__ import annotations

import math
import random


class TimingJitter:
    """Mean-1 factors for one task attempt's times; stream None or 0 (nominal): every factor is 1."""

    def __init__(self, stream: int | None, key: str) -> None:
        self.rng = random.Random(f"{key}|jitter|{stream}") if stream else None

    def factor(self, cv: float) -> float:
        """A lognormal factor with mean 1 and coefficient of variation ``cv``."""
        if self.rng is None or cv <= 0:
            return 1.0
        sigma2 = math.log1p(cv * cv)
        return math.exp(self.rng.gauss(-sigma2 / 2.0, math.sqrt(sigma2)))


__all__ = ["TimingJitter"]
