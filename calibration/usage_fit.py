"""Fit what is not the local server: the cloud API, tools, and agent behaviour statistics.

The cloud is modelled without contention (sim/entities/cloud.py): lognormal TTFT and output
rate and a prompt-cache hit probability. With a local stand-in for the cloud, these fits
describe the stand-in; the profile says so, as every report does.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from agbench.attempt import Endpoint, ErrorClass
from agbench.calibration.fitting import MIN_SAMPLES, lognormal_fit, too_few, variation
from agbench.status import Status


def fit_cloud(model_calls: pd.DataFrame) -> tuple[dict[str, Any], dict[str, Any]]:
    calls = model_calls[
        (model_calls["endpoint"] == Endpoint.CLOUD)
        & (model_calls["error_class"].fillna("") == ErrorClass.NONE)
    ]
    fits: dict[str, Any] = {}
    out: dict[str, Any] = {}
    ttft = calls["ttft_s"].dropna().to_numpy(float)
    if len(ttft) >= MIN_SAMPLES:
        out["ttft_median_s"], out["ttft_sigma"], q = lognormal_fit(ttft, "cloud.ttft_s")
        fits["cloud_ttft"] = q.to_dict()
    else:
        fits["cloud_ttft"] = too_few("cloud.ttft_s", len(ttft), "scenario").to_dict()
    rate = calls["output_tok_s"].dropna().to_numpy(float)
    if len(rate) >= MIN_SAMPLES:
        out["output_tok_s_median"], out["output_tok_s_sigma"], q = lognormal_fit(rate, "cloud.output_tok_s")
        fits["cloud_output_rate"] = q.to_dict()
    else:
        fits["cloud_output_rate"] = too_few("cloud.output_tok_s", len(rate), "scenario").to_dict()
    consults = calls[(calls["architecture"] == "HLL") & (calls["prompt_tokens"] > 0)]
    if len(consults) >= MIN_SAMPLES:
        out["consult_prefix_tokens"] = int(np.median(consults["cached_tokens"]))
        fits["cloud_consult_prefix"] = {"samples": len(consults), "method": "median cached tokens"}
    repeat = calls[calls["prompt_tokens"] > 0]
    if len(repeat) >= MIN_SAMPLES:
        out["cache_hit_p"] = float((repeat["cached_tokens"] > 0).mean())
        fits["cloud_cache"] = {
            "samples": len(repeat),
            "cached_fraction": float(repeat["cached_tokens"].sum() / max(1, repeat["prompt_tokens"].sum())),
        }
    return out, fits


def fit_tools(tool_calls: pd.DataFrame) -> tuple[dict[str, Any], dict[str, Any]]:
    calls = tool_calls[tool_calls["wall_s"] > 0]
    if len(calls) < MIN_SAMPLES:
        return {}, {"tools": too_few("tools.cpu_fraction", len(calls), "default").to_dict()}
    per_tool: dict[str, Any] = {}
    wall_by_tool: dict[str, float] = {}
    cpu_by_tool: dict[str, float] = {}
    cv_by_tool: dict[str, float] = {}
    for name, group in calls.groupby("tool"):
        wall = group["wall_s"].to_numpy(float)
        per_tool[str(name)] = {
            "samples": len(group),
            "wall_median_s": float(np.median(wall)),
            "wall_p95_s": float(np.percentile(wall, 95)),
            "cpu_fraction": float(group["cpu_s"].sum() / max(1e-9, group["wall_s"].sum())),
        }
        # Means, not medians: what a suite's wall time adds up is the mean per call.
        wall_by_tool[str(name)] = float(np.mean(wall))
        cpu_by_tool[str(name)] = float(group["cpu_s"].astype(float).mean())
        # across the calls seen: a synthesised step takes the tool's mean, whatever its task
        cv_by_tool[str(name)] = variation(wall)
    fraction = float(calls["cpu_s"].sum() / max(1e-9, calls["wall_s"].sum()))
    tools: dict[str, Any] = {
        "default_cpu_fraction": min(1.0, max(0.0, fraction)),
        "wall_s_by_tool": wall_by_tool,
        "cpu_s_by_tool": cpu_by_tool,
        "wall_cv_by_tool": cv_by_tool,
    }
    return tools, {"tools": {"samples": len(calls), "per_tool": per_tool}}


def fit_behaviour(
    task_runs: pd.DataFrame, model_calls: pd.DataFrame, messages: pd.DataFrame
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Agent statistics per category and architecture, and cloud exposure per architecture."""
    runs = task_runs[task_runs["status"] != Status.INTERRUPTED]
    out: dict[str, Any] = {}  # the harness's own time: harness_fit.py
    exposure: dict[str, float] = {}
    for arch, group in runs.groupby("architecture"):
        total = group["sensitive_total"].sum()
        if arch != "LO" and total > 0:
            exposure[str(arch)] = float(group["sensitive_exposed"].sum() / total)
    if exposure:
        out["exposure_p"] = exposure
    stats: dict[str, Any] = {}
    for key, group in runs.groupby(["architecture", "category"]):
        arch_name, category = key
        stats[f"{arch_name}/{category}"] = {
            "tasks": len(group),
            "model_calls_mean": float(group["model_calls"].mean()),
            "tool_calls_mean": float(group["tool_calls"].mean()),
            "prompt_tokens_mean": float(group["prompt_tokens"].mean()),
            "completion_tokens_mean": float(group["completion_tokens"].mean()),
            "success_rate": float((group["status"] == Status.SUCCESS).mean()),
            "context_limit_rate": float((group["status"] == Status.CONTEXT_LIMIT).mean()),
        }
    if not messages.empty:
        for kind, group in messages.groupby("kind"):
            stats[f"messages/{kind}"] = {"count": len(group), "ok_rate": float(group["ok"].mean())}
    return out, {"behaviour": stats}
