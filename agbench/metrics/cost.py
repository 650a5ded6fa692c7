"""What the cloud costs: money (cached / uncached input, output; successful vs failed tasks),
calls, and data exposure (DESIGN.md, "Metrics").

Token counts come from the counted attempts' ``task_runs`` rows, so a retried or interrupted
attempt is not billed twice in the report; the split into cached / uncached / output uses the
run's price table (run.json ``cloud.prices``, else the default table), while the total is the
cost the harness or simulator recorded.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from agbench.config import PriceTable
from agbench.status import Status


def price_table(meta: dict[str, Any]) -> PriceTable:
    """The run's cloud prices (USD per million tokens) from its metadata."""
    cloud = meta.get("cloud")
    prices = cloud.get("prices") if isinstance(cloud, dict) else None
    if prices is None:
        prices = meta.get("prices")
    if isinstance(prices, dict):
        known = {k: float(v) for k, v in prices.items() if k in PriceTable.__dataclass_fields__}
        return PriceTable(**known)
    return PriceTable()


def cost_metrics(rows: pd.DataFrame, prices: PriceTable) -> dict[str, Any]:
    """Cloud cost and calls of one configuration's counted attempts."""
    prompt = int(rows["cloud_prompt_tokens"].sum())
    cached = int(rows["cloud_cached_tokens"].sum())
    completion = int(rows["cloud_completion_tokens"].sum())
    success = rows["status"] == Status.SUCCESS.value
    return {
        "cloud_cost_usd": float(rows["cloud_cost_usd"].sum()),
        "cloud_cost_breakdown_usd": {
            "cached_input": cached * prices.cached_input_per_m / 1e6,
            "uncached_input": max(0, prompt - cached) * prices.uncached_input_per_m / 1e6,
            "output": completion * prices.output_per_m / 1e6,
        },
        "cloud_cost_successful_usd": float(rows.loc[success, "cloud_cost_usd"].sum()),
        "cloud_cost_failed_usd": float(rows.loc[~success, "cloud_cost_usd"].sum()),
        "cloud_calls": int(rows["cloud_calls"].sum()),
        "cloud_tokens": {"prompt": prompt, "cached": cached, "completion": completion},
    }


def exposure_metrics(rows: pd.DataFrame, exposures: pd.DataFrame) -> dict[str, Any]:
    """Distinct sensitive items seen by the cloud / all sensitive items of the tasks run.

    ``rows`` are one configuration's counted attempts and ``exposures`` that configuration's
    exposure rows from those attempts; an item is counted once per (task, item) however often
    it was sent. A configuration whose tasks hold no sensitive item has ratio 0.
    """
    total = int(rows["sensitive_total"].sum())
    exposed = int(exposures[["task", "item"]].astype(str).drop_duplicates().shape[0]) if len(exposures) else 0
    return {
        "sensitive_total": total,
        "sensitive_exposed": exposed,
        "exposure_ratio": min(1.0, exposed / total) if total else 0.0,
    }


__all__ = ["cost_metrics", "exposure_metrics", "price_table"]
