"""The Pareto front: points no other point beats on every objective at once."""

from __future__ import annotations

from collections.abc import Sequence

from agbench.sim.whatif.spec import OBJECTIVES


def dominates(a: dict[str, float], b: dict[str, float], objectives: Sequence[str]) -> bool:
    """``a`` is at least as good as ``b`` on every objective and better on one."""
    better = False
    for name in objectives:
        sign = 1.0 if OBJECTIVES[name] == "max" else -1.0
        da, db = sign * a[name], sign * b[name]
        if da < db - 1e-12:
            return False
        if da > db + 1e-12:
            better = True
    return better


def pareto_front(scores: Sequence[dict[str, float]], objectives: Sequence[str]) -> list[int]:
    """Indices of the non-dominated scores, in input order (ties: both kept)."""
    front: list[int] = []
    for i, a in enumerate(scores):
        if not any(dominates(b, a, objectives) for j, b in enumerate(scores) if j != i):
            front.append(i)
    return front


__all__ = ["dominates", "pareto_front"]
