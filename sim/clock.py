"""The one place that reads SimPy's private state.

Why: SimPy has no public count of the events an environment scheduled, and the engine reports
it (``SimResult.events``, what the speed benchmark compares against the per-token baseline).
Reading ``Environment._eid`` here, and nowhere else, keeps a SimPy upgrade that renames it a
one-line fix. The simulated time is read through the public ``env.now`` everywhere.
"""

from __future__ import annotations

import simpy


def events_scheduled(env: simpy.Environment) -> int:
    """How many events ``env`` has scheduled so far (SimPy's own event-id counter).

    The counter is an ``itertools.count``: reading it takes the next id, which is then never
    used, so call this once, after the run."""
    return int(next(env._eid))


__all__ = ["events_scheduled"]
