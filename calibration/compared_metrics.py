"""The metrics a simulation is compared with a live run on, and how each is read from a summary.

One list for everything that sets a simulated figure beside a live one: ``agbench validate``'s
rows, and the noise floor between two live recordings (noise_floor.py), so both speak of the
same figures under the same names.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from agbench.results import ConfigurationSummary
from agbench.status import Status


@dataclass(frozen=True)
class Metric:
    """A metric compared between live and simulated runs, and how to read it from a summary."""

    name: str
    path: tuple[str, ...]
    kind: str = "relative"  # "relative": % error; "count": absolute difference matters

    @property
    def key(self) -> str:
        """The figure's dotted summary key (``time_breakdown_s.tools``), as intervals name it."""
        return ".".join(self.path)


METRICS: tuple[Metric, ...] = (
    Metric("suite_wall_s", ("suite_wall_s",)),
    Metric("mean_completion_s_common", ("mean_completion_s_common",)),
    Metric("goodput_per_h", ("goodput_per_h",)),
    Metric(Status.SUCCESS.value, (Status.SUCCESS.value,), "count"),
    Metric(Status.CONTEXT_LIMIT.value, ("failures", Status.CONTEXT_LIMIT.value), "count"),
    Metric("ttft_p50_s", ("ttft_p50_s",)),
    Metric("ttft_p95_s", ("ttft_p95_s",)),
    Metric("output_tok_s_p50", ("output_tok_s_p50",)),
    Metric("kv_peak_cells", ("kv_peak_cells",)),
    Metric("local_model_s", ("time_breakdown_s", "local_model")),
    Metric("cloud_model_s", ("time_breakdown_s", "cloud_model")),
    Metric("tools_s", ("time_breakdown_s", "tools")),
    Metric("cloud_cost_usd", ("cloud_cost_usd",)),
)


def metric_value(entry: ConfigurationSummary | None, path: tuple[str, ...]) -> float | None:
    """One metric of a configuration's summary by its path (a Metric's ``path``); None when absent
    or not a finite number."""
    value: Any = entry
    for key in path:  # model fields, then keys of a figure table (failures by status)
        value = value.get(key) if isinstance(value, dict) else getattr(value, key, None)
    if value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


__all__ = ["METRICS", "Metric", "metric_value"]
