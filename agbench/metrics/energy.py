"""Energy per configuration: measured from power samples, or modelled from a scenario's watts.

Measured (live runs): the resource sampler records NVML's GPU energy counter or board power,
and RAPL's CPU package energy counter. A counter's energy is the sum of its increases between
consecutive samples (a restart, such as a resumed sweep's new sampler, adds nothing for that
step rather than a negative figure); GPU power without a counter is integrated over time
(trapezoids). The configuration's energy is the sum of the sources it had, over its sampling
window, so it includes the idle time between tasks: what running the suite cost the device.

Modelled (simulated runs): the device draws ``idle_w`` and, while the local server serves at
least one request, ``active_w`` (``[device]`` in the scenario, with sources). The busy time is
the union of the local model calls' intervals, so concurrent requests on one server count once.

Per task is the configuration's energy over its counted tasks; per successful task over its
successes. Where there is no source every figure is None and ``energy_note`` says why (the
hardware inventory in run.json names the missing sources); reports print that reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from agbench.results.summary import ConfigurationSummary

J_PER_WH = 3600.0
SAMPLE_COLUMNS = ["gpu_power_w", "gpu_temp_c", "gpu_energy_j", "cpu_energy_j"]
ENERGY_KEYS = (
    "energy_wh",
    "energy_wh_per_task",
    "energy_wh_per_success",
    "energy_source",
    "energy_note",
    "gpu_power_w_mean",
    "gpu_power_w_peak",
    "gpu_temp_c_peak",
)


def _series(frame: pd.DataFrame, column: str) -> tuple[np.ndarray, np.ndarray]:
    """(times, values) of a sample column's known values, in time order."""
    if column not in frame.columns or not len(frame):
        return np.empty(0), np.empty(0)
    sub = frame[["t", column]].dropna().sort_values("t", kind="stable")
    return sub["t"].to_numpy(dtype=float), sub[column].to_numpy(dtype=float)


def counter_j(frame: pd.DataFrame, column: str) -> float | None:
    """Energy from a cumulative counter column: the sum of its increases (None: < 2 samples)."""
    _, values = _series(frame, column)
    if len(values) < 2:
        return None
    return float(np.clip(np.diff(values), 0.0, None).sum())


def integrated_j(frame: pd.DataFrame, column: str) -> float | None:
    """Energy from a power column (W) by the trapezoid rule (None: < 2 samples)."""
    t, watts = _series(frame, column)
    if len(watts) < 2:
        return None
    return float(np.sum((watts[1:] + watts[:-1]) / 2.0 * np.diff(t)))


def busy_seconds(starts: Any, durations: Any) -> float:
    """The length of the union of the intervals [start, start + duration]."""
    s = np.asarray(starts, dtype=float)
    e = s + np.clip(np.nan_to_num(np.asarray(durations, dtype=float)), 0.0, None)
    if not len(s):
        return 0.0
    order = np.argsort(s, kind="stable")
    s, e = s[order], e[order]
    reach = np.maximum.accumulate(e)
    # An interval opens a new busy stretch when it starts after everything before it ended.
    new = np.empty(len(s), dtype=bool)
    new[0] = True
    new[1:] = s[1:] > reach[:-1]
    starts_of = s[new]
    ends_of = np.append(reach[np.flatnonzero(new)[1:] - 1], reach[-1])
    return float(np.sum(ends_of - starts_of))


def modelled_energy_j(idle_w: float, active_w: float, window_s: float, busy_s: float) -> float:
    """idle power over the whole window plus the extra active power while busy."""
    return idle_w * window_s + (active_w - idle_w) * min(busy_s, window_s)


def power_figures(meta: dict[str, Any]) -> tuple[float, float] | None:
    """(idle_w, active_w) of a simulated run's device, or None when the scenario gives none."""
    profile = meta.get("profile")
    device = profile.get("device") if isinstance(profile, dict) else None
    if not isinstance(device, dict):
        return None
    idle, active = float(device.get("idle_w") or 0.0), float(device.get("active_w") or 0.0)
    return (idle, active) if active > 0 else None


def missing_reason(meta: dict[str, Any], device: str) -> str:
    """Why a configuration has no energy figure, in the words a report prints."""
    if meta.get("source") == "sim":
        return "no power figures in the scenario ([device] idle_w / active_w)"
    hardware = meta.get("hardware")
    inventory = hardware.get(device) if isinstance(hardware, dict) else None
    if not isinstance(inventory, dict):
        return "no power or energy samples (run recorded without energy sources)"
    sources = inventory.get("energy_sources") or {}
    parts = [str(sources[k]) for k in ("gpu", "cpu") if sources.get(k)]
    return "; ".join(parts) or "no power or energy samples"


def energy_metrics(
    samples: pd.DataFrame | None,
    local_calls: pd.DataFrame | None,
    *,
    tasks: int,
    successes: int,
    window_s: float,
    meta: dict[str, Any],
    device: str,
) -> dict[str, Any]:
    """The energy figures of one configuration (every key of ``ENERGY_KEYS``)."""
    out: dict[str, Any] = dict.fromkeys(ENERGY_KEYS)
    out["energy_source"] = out["energy_note"] = ""
    frame = samples if samples is not None else pd.DataFrame()
    joules: float | None = None
    sources: list[str] = []
    figures = power_figures(meta) if meta.get("source") == "sim" else None
    if figures is not None:
        calls = local_calls if local_calls is not None else pd.DataFrame({"t_start": [], "total_s": []})
        busy = busy_seconds(calls["t_start"], calls["total_s"])
        joules = modelled_energy_j(*figures, window_s, busy)
        sources.append(f"modelled: {figures[0]:g} W idle, {figures[1]:g} W serving (scenario)")
    else:
        gpu = counter_j(frame, "gpu_energy_j")
        if gpu is not None:
            sources.append("GPU (NVML energy counter)")
        else:
            gpu = integrated_j(frame, "gpu_power_w")
            if gpu is not None:
                sources.append("GPU (NVML power, integrated)")
        cpu = counter_j(frame, "cpu_energy_j")
        if cpu is not None:
            sources.append("CPU package (RAPL)")
        known = [j for j in (gpu, cpu) if j is not None]
        joules = sum(known) if known else None
    _, power = _series(frame, "gpu_power_w")
    _, temps = _series(frame, "gpu_temp_c")
    if len(power):
        out["gpu_power_w_mean"], out["gpu_power_w_peak"] = float(power.mean()), float(power.max())
    if len(temps):
        out["gpu_temp_c_peak"] = float(temps.max())
    if joules is None:
        out["energy_note"] = missing_reason(meta, device)
        return out
    wh = joules / J_PER_WH
    out["energy_wh"] = wh
    out["energy_source"] = " + ".join(sources)
    out["energy_wh_per_task"] = wh / tasks if tasks else None
    out["energy_wh_per_success"] = wh / successes if successes else None
    if not successes:
        out["energy_note"] = "no successful task: no energy per success"
    return out


def energy_notes(configurations: Sequence[ConfigurationSummary]) -> list[str]:
    """The distinct reasons a report states under its energy columns."""
    return list(dict.fromkeys(c.energy_note for c in configurations if c.energy_note))


__all__ = [
    "ENERGY_KEYS",
    "J_PER_WH",
    "SAMPLE_COLUMNS",
    "busy_seconds",
    "counter_j",
    "energy_metrics",
    "energy_notes",
    "integrated_j",
    "missing_reason",
    "modelled_energy_j",
    "power_figures",
]
