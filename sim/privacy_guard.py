"""The privacy guard in the simulator: what ``--privacy-guard redact`` changes in a what-if.

The simulator does not run a detector; it applies the live guard's measured figures to a
simulated deployment's objectives:

- exposure after the guard = exposure without it × (1 − recall), the recall being the
  detector's measured recall per declared kind weighted by the suite's mix of kinds (the
  share of its sensitive items of each kind);
- success × (1 − success_cost), the measured share of successes the redaction cost (0 on the
  replay agent, whose decisions never depend on a value; a model-driven comparison of
  ``agbench report RUN_OFF RUN_GUARD`` measures it for a real model);
- every cloud call takes the guard's added latency per call longer (the bench's mean), so each
  task's completion time grows by its cloud calls × that latency, and the suite's time by the
  total over the tasks in flight.

``GUARDS`` holds the figures (``bench/privacy_guard.py`` prints them; docs/privacy.md lists
the commands). The what-if axis ``guard`` takes ``off`` or a key of ``GUARDS``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agbench.errors import AgbenchError
from agbench.records import TaskRun
from agbench.status import Status

#: The suite's sensitive items per declared kind (tasks/*/*/task.toml).
KIND_MIX = {"personal_identifier": 84, "personal_record": 59, "credential": 30, "business_confidential": 6}


@dataclass(frozen=True)
class GuardModel:
    """One guard configuration's measured figures."""

    name: str
    recall_by_kind: dict[str, float]
    success_cost: float  # share of successes lost to redaction
    latency_s: float  # added per cloud call

    @property
    def recall(self) -> float:
        """Recall over the suite's mix of kinds."""
        total = sum(KIND_MIX.values())
        return sum(self.recall_by_kind.get(k, 0.0) * n for k, n in KIND_MIX.items()) / total


GUARDS: dict[str, GuardModel] = {
    # redact with the task's declared items: every item kept from the cloud; the bench's mean
    # added time per call (``bench/privacy_guard.py --recall``, README "Performance").
    "declared": GuardModel("declared", dict.fromkeys(KIND_MIX, 1.0), 0.0, 0.00054),
    # redact with Presidio + detect-secrets: recall per kind over the suite's text (names are not
    # detected, hence personal identifiers 27/74), mean added time per call 80.5 ms.
    "presidio": GuardModel(
        "presidio",
        {
            "personal_identifier": 0.36,
            "personal_record": 0.26,
            "credential": 0.35,
            "business_confidential": 0.0,
        },
        0.0,
        0.0805,
    ),
}
GUARD_CHOICES = ("off", *GUARDS)


def guard_axis(where: str, values: list[object]) -> list[str]:
    """A what-if spec's ``[space].guard`` values, checked (one-line error naming the file)."""
    bad = [v for v in values if v not in GUARD_CHOICES]
    if bad:
        raise AgbenchError(f"{where}: [space].guard must list {', '.join(GUARD_CHOICES)}, got {bad}")
    return [str(v) for v in values]


def guarded(
    objectives: dict[str, float], guard: str | None, runs: Sequence[object], concurrency: int
) -> dict[str, float]:
    """A point's objectives with the guard ``guard`` applied (unchanged for None / ``off``)."""
    model = GUARDS.get(guard or "off")
    if model is None:
        return objectives
    tasks = [r for r in runs if isinstance(r, TaskRun) and r.status != Status.INTERRUPTED]
    calls = sum(r.cloud_calls for r in tasks)
    added_s = calls * model.latency_s
    out = dict(objectives)
    out["exposure"] = objectives["exposure"] * (1.0 - model.recall)
    out["success"] = objectives["success"] * (1.0 - model.success_cost)
    out["mean_completion"] = objectives["mean_completion"] + (added_s / len(tasks) if tasks else 0.0)
    successes = objectives["success"] * len(tasks)
    if successes and objectives["goodput"]:  # goodput = successes / suite hours: stretch the suite
        suite_s = successes / objectives["goodput"] * 3600
        stretched_s = suite_s + added_s / max(1, concurrency)  # the tasks in flight wait in parallel
        out["goodput"] = out["success"] * len(tasks) / stretched_s * 3600
    return out


__all__ = ["GUARDS", "GUARD_CHOICES", "KIND_MIX", "GuardModel", "guard_axis", "guarded"]
