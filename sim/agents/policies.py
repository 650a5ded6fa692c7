"""Per-architecture failure policies: what an agent does when the infrastructure intervenes.

They are data (``BehaviourProfile``) plus the few decisions below, kept apart from the agent
loop so a what-if can change a policy without touching the mechanics:

* LO: the local agent does not compact its history; a context error ends the task.
* CO: no local model; only the deadline can intervene.
* HCL: a local sub-agent's context error reaches the cloud lead as a generic tool failure; the
  lead delegates again with probability ``hcl_redelegate_p`` (so it may loop until the
  deadline), else it carries on without the delegated work, and the task fails verification.
  The sub-agent keeps its history across delegations (``hcl_sub_agent = "persistent"``, the
  paper's; a re-delegation after a context error resends the history that failed plus the new
  instruction) or starts afresh each time (``"fresh"``): agbench.hcl_sub_agent.
* HLL: the local lead's context error ends the task, unless it hands the rest to the cloud
  (``hll_consult_on_context_error_p``, 0 by default: the paper's agent does not).
Every local context error is counted in the trace even when a hybrid papers over it.
"""

from __future__ import annotations

import random

from agbench.config import Architecture
from agbench.sim.profiles import BehaviourProfile


def stops_on_local_context_error(arch: Architecture, behaviour: BehaviourProfile) -> bool:
    if arch is Architecture.LO:
        return bool(behaviour.lo_stop_on_context_error)
    if arch is Architecture.HLL:
        return bool(behaviour.hll_stop_on_context_error)
    return True


def redelegates(rng: random.Random, behaviour: BehaviourProfile, failures_so_far: int) -> bool:
    return bool(failures_so_far < behaviour.hcl_redelegate_max and rng.random() < behaviour.hcl_redelegate_p)


def hll_hands_over_to_cloud(rng: random.Random, behaviour: BehaviourProfile) -> bool:
    return bool(rng.random() < behaviour.hll_consult_on_context_error_p)


__all__ = ["hll_hands_over_to_cloud", "redelegates", "stops_on_local_context_error"]
