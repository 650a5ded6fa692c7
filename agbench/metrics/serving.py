"""How the model servers behaved: TTFT, output speed, queueing, errors, KV-cache pressure.

These come from ``model_calls`` (one row per request) and ``server_samples`` (the local
server's state over time), the paper's serving view of a run. Percentiles use linear
interpolation (numpy's default) and are null when there is no sample.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

ENDPOINTS = ("local", "cloud")


def _percentiles(values: pd.Series) -> dict[str, float | None]:
    data = values.dropna().to_numpy(dtype=np.float64)
    if data.size == 0:
        return {"p50": None, "p95": None, "mean": None}
    p50, p95 = np.percentile(data, [50.0, 95.0])
    return {"p50": float(p50), "p95": float(p95), "mean": float(data.mean())}


def endpoint_metrics(calls: pd.DataFrame) -> dict[str, Any]:
    """Serving figures for one endpoint's calls within one configuration."""
    errors = calls["error_class"].astype(str)
    errors = errors[errors != ""]
    return {
        "calls": len(calls),
        "ttft_s": _percentiles(calls["ttft_s"]),
        "output_tok_s": _percentiles(calls["output_tok_s"]),
        "total_s": _percentiles(calls["total_s"]),
        "queue_s_mean": float(calls["queue_s"].mean()) if len(calls) else None,
        "errors": {str(k): int(v) for k, v in errors.value_counts().sort_index().items()},
    }


def serving_metrics(calls_by_endpoint: dict[str, pd.DataFrame], samples: pd.DataFrame) -> dict[str, Any]:
    """Serving metrics of one configuration.

    Flat keys (``ttft_p50_s`` ...) describe the local server, the one the simulator models and
    validation compares; ``cloud_ttft_p50_s`` ... the cloud endpoint; ``serving`` has both in full.
    """
    serving = {endpoint: endpoint_metrics(calls) for endpoint, calls in calls_by_endpoint.items()}
    out: dict[str, Any] = {"serving": serving}
    for endpoint, prefix in (("local", ""), ("cloud", "cloud_")):
        figures = serving.get(endpoint)
        for metric, name in (("ttft_s", "ttft"), ("output_tok_s", "output_tok_s")):
            for q in ("p50", "p95"):
                value = figures[metric][q] if figures else None
                key = f"{prefix}{name}_{q}_s" if metric == "ttft_s" else f"{prefix}{name}_{q}"
                out[key] = value
    out["context_errors_local"] = (
        int(serving["local"]["errors"].get("context_limit", 0)) if "local" in serving else 0
    )
    kv = samples[samples["kv_total"] > 0] if len(samples) else samples
    if len(kv):
        usage = kv["kv_used"] / kv["kv_total"]
        out["kv_peak_fraction"] = float(usage.max())
        out["kv_peak_cells"] = int(kv["kv_used"].max())
        out["kv_mean_fraction"] = float(usage.mean())
    else:
        out["kv_peak_fraction"] = None
        out["kv_peak_cells"] = None
        out["kv_mean_fraction"] = None
    out["requests_waiting_peak"] = int(samples["requests_waiting"].max()) if len(samples) else None
    out["server_samples"] = len(samples)
    return out


__all__ = ["ENDPOINTS", "endpoint_metrics", "serving_metrics"]
