"""How the model servers behaved: TTFT, output speed, queueing, errors, KV-cache pressure.

These come from ``model_calls`` (one row per request) and ``server_samples`` (the local
server's state over time), the paper's serving view of a run. Percentiles use linear
interpolation (numpy's and pandas' default) and are null when there is no sample. Every
figure is one grouped aggregation over the whole table, not a loop over configurations:
a run can hold millions of calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

CONFIG_KEYS = ["device", "architecture", "concurrency"]
ENDPOINTS = ("local", "cloud")
_DISTRIBUTIONS = ("ttft_s", "output_tok_s", "total_s")

ConfigKey = tuple[str, str, int]


def _key(values: Any) -> ConfigKey:
    device, arch, conc = values
    return (str(device), str(arch), int(conc))


def _num(value: Any) -> float | None:
    return None if pd.isna(value) else float(value)


def endpoint_figures(calls: pd.DataFrame) -> dict[ConfigKey, dict[str, dict[str, Any]]]:
    """Per configuration and endpoint: call count, p50/p95/mean of TTFT, output tok/s and
    total time, mean queueing, and error classes."""
    if not len(calls):
        return {}
    keys = [*CONFIG_KEYS, "endpoint"]
    grouped = calls.groupby(keys, observed=True, sort=True)
    values = calls[[*keys, *_DISTRIBUTIONS, "queue_s"]].astype(
        {c: "float64" for c in (*_DISTRIBUTIONS, "queue_s")}
    )
    grouped = values.groupby(keys, observed=True, sort=True)
    # Typed as Any: pandas-stubs cannot follow MultiIndex lookups by tuple.
    quantiles: Any = grouped[list(_DISTRIBUTIONS)].quantile(np.array([0.5, 0.95]))
    means: Any = grouped[[*_DISTRIBUTIONS, "queue_s"]].mean()
    sizes: dict[Any, int] = grouped.size().to_dict()
    errors_frame = calls.loc[calls["error_class"].astype(str) != "", [*keys, "error_class"]]
    errors: dict[Any, int] = (
        errors_frame.astype({"error_class": str})
        .groupby([*keys, "error_class"], observed=True)
        .size()
        .to_dict()
    )
    out: dict[ConfigKey, dict[str, dict[str, Any]]] = {}
    for index, count in sizes.items():
        device, arch, conc, endpoint = index
        figures: dict[str, Any] = {"calls": int(count)}
        for column in _DISTRIBUTIONS:
            figures[column] = {
                "p50": _num(quantiles.loc[(*index, 0.5), column]),
                "p95": _num(quantiles.loc[(*index, 0.95), column]),
                "mean": _num(means.loc[index, column]),
            }
        figures["queue_s_mean"] = _num(means.loc[index, "queue_s"])
        figures["errors"] = {}
        out.setdefault(_key((device, arch, conc)), {})[str(endpoint)] = figures
    for index, count in errors.items():
        device, arch, conc, endpoint, error = index
        out[_key((device, arch, conc))][str(endpoint)]["errors"][str(error)] = int(count)
    return out


def sample_figures(samples: pd.DataFrame) -> dict[ConfigKey, dict[str, Any]]:
    """Per configuration: peak and mean KV usage, peak waiting requests, sample count.

    Only the local server counts: a cloud stand-in is sampled too, but its pool is not the
    device's KV cache the paper's serving view (and the simulator) describe.
    """
    if "server" in samples.columns:
        samples = samples[samples["server"].astype(str) == "local"]
    if not len(samples):
        return {}
    frame = samples[[*CONFIG_KEYS, "kv_used", "kv_total", "requests_waiting"]].copy()
    frame["usage"] = (frame["kv_used"] / frame["kv_total"]).where(frame["kv_total"] > 0)
    frame["kv_cells"] = frame["kv_used"].where(frame["kv_total"] > 0)
    grouped = frame.groupby(CONFIG_KEYS, observed=True, sort=True)
    table = grouped.agg(
        kv_peak_fraction=("usage", "max"),
        kv_mean_fraction=("usage", "mean"),
        kv_peak_cells=("kv_cells", "max"),
        requests_waiting_peak=("requests_waiting", "max"),
        server_samples=("usage", "size"),
    )
    out: dict[ConfigKey, dict[str, Any]] = {}
    for index, row in table.iterrows():
        peak_cells = _num(row["kv_peak_cells"])
        out[_key(index)] = {
            "kv_peak_fraction": _num(row["kv_peak_fraction"]),
            "kv_peak_cells": None if peak_cells is None else int(peak_cells),
            "kv_mean_fraction": _num(row["kv_mean_fraction"]),
            "requests_waiting_peak": int(row["requests_waiting_peak"]),
            "server_samples": int(row["server_samples"]),
        }
    return out


def serving_metrics(endpoints: dict[str, dict[str, Any]], samples: dict[str, Any] | None) -> dict[str, Any]:
    """One configuration's serving metrics from its precomputed figures.

    Flat keys (``ttft_p50_s`` ...) describe the local server, the one the simulator models and
    validation compares; ``cloud_ttft_p50_s`` ... the cloud endpoint; ``serving`` has both in full.
    """
    out: dict[str, Any] = {"serving": endpoints}
    for endpoint, prefix in (("local", ""), ("cloud", "cloud_")):
        figures = endpoints.get(endpoint)
        for q in ("p50", "p95"):
            out[f"{prefix}ttft_{q}_s"] = figures["ttft_s"][q] if figures else None
            out[f"{prefix}output_tok_s_{q}"] = figures["output_tok_s"][q] if figures else None
    local = endpoints.get("local")
    out["context_errors_local"] = int(local["errors"].get("context_limit", 0)) if local else 0
    out.update(
        samples
        or {
            "kv_peak_fraction": None,
            "kv_peak_cells": None,
            "kv_mean_fraction": None,
            "requests_waiting_peak": None,
            "server_samples": 0,
        }
    )
    return out


__all__ = ["ENDPOINTS", "endpoint_figures", "sample_figures", "serving_metrics"]
