"""The paper's C = 1 figures computed from simulated task runs (the fit's fast path).

``agbench.metrics.summarize`` is the official code path (``check.py`` uses it); this module
computes the same definitions straight from ``TaskRun`` records, without building tables, so
the fit can evaluate hundreds of candidate workloads in minutes. A test checks that both give
the same numbers on the fitted scenarios.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from agbench.records import TaskRun
from agbench.status import Status

#: The failure statuses the paper reports, in the order its tables list them.
FAILURES = (Status.CONTEXT_LIMIT, Status.TIMEOUT, Status.VERIFICATION_FAILED, Status.EXECUTION_ERROR)

FigureKey = tuple[str, str, str, str]  # (metric, device scenario, arch, category or "")


@dataclass(frozen=True)
class RunRow:
    """What the figures need from one task run (status possibly relabelled by the fit)."""

    task: str
    category: str
    status: str
    wall_s: float
    t_start: float
    t_end: float
    local_model_s: float
    cloud_calls: int
    cloud_prompt: int
    cloud_cached: int
    cloud_completion: int
    sensitive_total: int
    sensitive_exposed: int

    @classmethod
    def of(cls, r: TaskRun, status: str | None = None) -> RunRow:
        return cls(
            r.task,
            r.category,
            status if status is not None else r.status,
            r.t_end - r.t_start,
            r.t_start,
            r.t_end,
            r.local_model_s,
            r.cloud_calls,
            r.cloud_prompt_tokens,
            r.cloud_cached_tokens,
            r.cloud_completion_tokens,
            r.sensitive_total,
            r.sensitive_exposed,
        )


Runs = Mapping[tuple[str, str], Sequence[RunRow]]  # (device scenario, arch) -> rows


def figures(runs: Runs) -> dict[FigureKey, float]:
    """Every C = 1 figure the paper publishes, for every (device, arch) present in ``runs``."""
    out: dict[FigureKey, float] = {}
    devices = sorted({d for d, _ in runs})
    for device in devices:
        archs = [a for d, a in runs if d == device]
        solved = {a: {r.task for r in runs[(device, a)] if r.status == Status.SUCCESS} for a in archs}
        common = set.intersection(*solved.values()) if solved else set()
        for arch in archs:
            rows = runs[(device, arch)]
            n = len(rows)
            success = len(solved[arch])
            suite = max(r.t_end for r in rows) - min(r.t_start for r in rows) if rows else 0.0
            walls = [r.wall_s for r in rows if r.task in common and r.status == Status.SUCCESS]
            out[("success", device, arch, "")] = float(success)
            out[("suite_s", device, arch, "")] = suite
            out[("goodput_per_h", device, arch, "")] = success / (suite / 3600.0) if suite > 0 else 0.0
            out[("completion_s", device, arch, "")] = sum(walls) / len(walls) if walls else float("nan")
            out[("local_wait_s_per_task", device, arch, "")] = sum(r.local_model_s for r in rows) / max(1, n)
            out[("cloud_calls", device, arch, "")] = float(sum(r.cloud_calls for r in rows))
            prompt = sum(r.cloud_prompt for r in rows)
            cached = sum(r.cloud_cached for r in rows)
            out[("cloud_input", device, arch, "")] = float(prompt)
            out[("cloud_output", device, arch, "")] = float(sum(r.cloud_completion for r in rows))
            out[("cloud_uncached_share", device, arch, "")] = (prompt - cached) / prompt if prompt else 0.0
            total_items = sum(r.sensitive_total for r in rows)
            out[("exposure", device, arch, "")] = (
                sum(r.sensitive_exposed for r in rows) / total_items if total_items else 0.0
            )
            for status in FAILURES:
                out[(status.value, device, arch, "")] = float(sum(1 for r in rows if r.status == status))
            for category in sorted({r.category for r in rows}):
                out[("category_success", device, arch, category)] = float(
                    sum(1 for r in rows if r.category == category and r.status == Status.SUCCESS)
                )
        if "CO" in archs:
            for arch in archs:
                co_in = out[("cloud_input", device, "CO", "")]
                co_out = out[("cloud_output", device, "CO", "")]
                out[("cloud_input_vs_co", device, arch, "")] = (
                    out[("cloud_input", device, arch, "")] / co_in if co_in else 0.0
                )
                out[("cloud_output_vs_co", device, arch, "")] = (
                    out[("cloud_output", device, arch, "")] / co_out if co_out else 0.0
                )
    return out


__all__ = ["FAILURES", "FigureKey", "RunRow", "Runs", "figures"]
