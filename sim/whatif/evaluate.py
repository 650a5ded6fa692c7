"""One what-if point: its profile, whether it fits in memory, its simulation and its figures.

Why a separate module: the search fans points out to processes or Ray nodes, so what a point
needs travels as plain data (the point, the device scenario's profile, the workload) and what
comes back is small (objectives and the bottleneck), never the trace records.

Memory fit is the roofline's check, for architectures that run the local model (not CO) (``sim/predictors/roofline.py``: weights + runtime overhead
+ the KV pool the server allocates at the point's concurrency must fit the device's memory);
a point that does not fit is *refused* with that check's one-line reason, never simulated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agbench.config import Architecture
from agbench.errors import AgbenchError
from agbench.records import ModelCall, TaskRun
from agbench.sim.engine import SimResult, simulate
from agbench.sim.predictors.roofline import Roofline
from agbench.sim.privacy_guard import guarded
from agbench.sim.profiles import Profile
from agbench.sim.whatif.bottleneck import Bottleneck, explain
from agbench.sim.whatif.spec import Point, kv_bits, weight_bits
from agbench.sim.workloads.base import Workload
from agbench.status import Status


@dataclass
class PointResult:
    """What the search keeps of a point: objectives and bottleneck, or why it was refused."""

    point: Point
    objectives: dict[str, float] = field(default_factory=dict)
    bottleneck: Bottleneck | None = None
    refused: str = ""  # the memory check's reason; empty when simulated
    memory_gb: float = 0.0
    memory_limit_gb: float = 0.0
    suite_wall_s: float = 0.0
    tasks: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.point.label,
            **self.point.to_dict(),
            "refused": self.refused,
            "memory_gb": round(self.memory_gb, 3),
            "memory_limit_gb": self.memory_limit_gb,
            "tasks": self.tasks,
            "suite_wall_s": self.suite_wall_s,
            **self.objectives,
            "bottleneck": self.bottleneck.name if self.bottleneck else "",
            "explanation": self.bottleneck.text if self.bottleneck else "",
            "time_shares": self.bottleneck.shares if self.bottleneck else {},
        }


def point_profile(base: Profile, point: Point) -> Profile:
    """The device scenario's profile with the point's settings laid over it."""
    model: dict[str, Any] = {}
    server: dict[str, Any] = {}
    if point.params_b is not None:
        model["params_b"] = point.params_b
    if point.weight_quant is not None:
        model["weight_bits"] = weight_bits(point.weight_quant)
    if point.kv_cache is not None:
        model["kv_bits"] = kv_bits(point.kv_cache)
    if point.pool_tokens is not None:
        server["n_ctx"] = point.pool_tokens
        server["n_ctx_per_slot"] = 0  # the pool is the axis, not per-slot growth
    if point.slots is not None:
        server["n_parallel"] = point.slots
    if point.kv is not None:
        server["kv_unified"] = point.kv == "unified"
    if point.threads is not None:
        server["threads"] = point.threads
    overlay = {k: v for k, v in (("model", model), ("server", server)) if v}
    if model and base.server.rates is not None:
        raise AgbenchError(
            f"{point.device}: its [server.rates] ({base.server.rates.source}) were measured for one model; "
            "the params_b, weight_quant and kv_cache axes need roofline rates (a scenario without [server.rates])"
        )
    return base.merged(overlay) if overlay else base


def objectives(result: SimResult) -> dict[str, float]:
    """success (rate), goodput (successes per hour of suite time), mean_completion (s per task),
    cloud_cost (USD for the suite), exposure (sensitive items exposed / present)."""
    runs = [r for r in result.records if isinstance(r, TaskRun) and r.status != Status.INTERRUPTED]
    ok = sum(1 for r in runs if r.status == Status.SUCCESS)
    suite = max((r.t_end for r in runs), default=0.0) - min((r.t_start for r in runs), default=0.0)
    sensitive = sum(r.sensitive_total for r in runs)
    return {
        "success": ok / len(runs) if runs else 0.0,
        "goodput": ok / suite * 3600 if suite > 0 else 0.0,
        "mean_completion": sum(r.wall_s for r in runs) / len(runs) if runs else 0.0,
        "cloud_cost": sum(r.cloud_cost_usd for r in runs),
        "exposure": sum(r.sensitive_exposed for r in runs) / sensitive if sensitive else 0.0,
    }


def evaluate(
    point: Point, base: Profile, workload: Workload, seed: int, jitter: int | None = None
) -> PointResult:
    """Check the point's memory fit, then simulate it (deterministic for the seed and the
    timing-jitter stream)."""
    profile = point_profile(base, point)
    roof = Roofline(profile.device, profile.model, profile.server)
    out = PointResult(
        point,
        memory_gb=roof.memory_needed_gb(point.concurrency),
        memory_limit_gb=profile.device.memory_gb,
    )
    if Architecture(point.arch).uses_local:  # CO never starts the local server
        try:
            roof.check_fits(point.concurrency, point.label)
        except AgbenchError as exc:
            out.refused = str(exc)
            return out
    else:
        out.memory_gb = 0.0
    result = simulate(profile, point.arch, point.concurrency, seed, workload, run_id="whatif", jitter=jitter)
    out.objectives = guarded(objectives(result), point.guard, result.records, point.concurrency)
    out.suite_wall_s = result.suite_wall_s
    out.tasks = sum(1 for r in result.records if isinstance(r, TaskRun))
    calls = [r for r in result.records if isinstance(r, ModelCall)]
    tasks = [r for r in result.records if isinstance(r, TaskRun)]
    kv_peak = result.kv_peak_tokens / result.kv_total_tokens if result.kv_total_tokens else 0.0
    out.bottleneck = explain(tasks, calls, kv_peak, result.kv_total_tokens)
    return out


def evaluate_chunk(
    items: list[tuple[Point, str]],
    bases: dict[str, Profile],
    workloads: dict[str, Workload],
    seed: int,
    jitter: int | None = None,
) -> list[PointResult]:
    """A batch of points (one process or Ray task evaluates many, so little travels per point)."""
    return [evaluate(point, bases[key], workloads[key], seed, jitter) for point, key in items]


__all__ = ["PointResult", "evaluate", "evaluate_chunk", "objectives", "point_profile"]
