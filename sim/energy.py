"""The simulator's energy model: a scenario's power figures applied to a simulated run.

A device draws ``[device] idle_w`` all the time and ``active_w`` while its local server serves
at least one request (llama.cpp runs one batch at a time, so more concurrent requests keep the
device busy longer, not at a higher draw in this model). The figures carry sources in
``[device.sources]`` like every other input. The run's summary computes the same figure from
run.json's profile and the model-call rows (``agbench.metrics.energy``, one formula for both),
so this module is what the simulator itself offers: the check of the figures, the lines that
state them, and the energy of results before they are written.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agbench.errors import AgbenchError
from agbench.metrics.energy import J_PER_WH, busy_seconds, modelled_energy_j
from agbench.records import ModelCall, TaskRun
from agbench.sim.profiles import DeviceProfile

ConfigKey = tuple[str, str, int]


def has_power_figures(device: DeviceProfile) -> bool:
    return device.active_w > 0


def check_power(device: DeviceProfile) -> None:
    """One-line error for figures that cannot describe a device (negative, or idle above active)."""
    if device.idle_w < 0 or device.active_w < 0:
        raise AgbenchError(f"device {device.name}: idle_w and active_w must not be negative")
    if has_power_figures(device) and device.idle_w > device.active_w:
        raise AgbenchError(
            f"device {device.name}: idle_w ({device.idle_w:g} W) above active_w ({device.active_w:g} W)"
        )


def power_assumptions(device: DeviceProfile) -> list[str]:
    """The energy model's inputs, one a line with its source (for explain output and docs)."""
    if not has_power_figures(device):
        return [f"energy: no power figures for {device.name} ([device] idle_w / active_w): energy left empty"]
    return [
        f"energy: {device.name} idle {device.idle_w:g} W ({device.sources.get('idle_w', 'no source given')})",
        f"energy: {device.name} serving {device.active_w:g} W ({device.sources.get('active_w', 'no source given')})",
    ]


def simulated_energy_wh(records: Iterable[Any], device: DeviceProfile) -> dict[ConfigKey, float]:
    """Energy (Wh) of each configuration of simulated records, by the model above; empty
    without power figures. The window is each configuration's first task start to last end,
    as the summary's suite time."""
    check_power(device)
    if not has_power_figures(device):
        return {}
    windows: dict[ConfigKey, list[float]] = {}
    calls: dict[ConfigKey, tuple[list[float], list[float]]] = {}
    for rec in records:
        key = (rec.device, rec.architecture, int(rec.concurrency))
        if isinstance(rec, TaskRun):
            span = windows.setdefault(key, [rec.t_start, rec.t_end])
            span[0], span[1] = min(span[0], rec.t_start), max(span[1], rec.t_end)
        elif isinstance(rec, ModelCall) and rec.endpoint == "local":
            starts, durations = calls.setdefault(key, ([], []))
            starts.append(rec.t_start)
            durations.append(rec.total_s)
    out: dict[ConfigKey, float] = {}
    for key, (t0, t1) in windows.items():
        starts, durations = calls.get(key, ([], []))
        joules = modelled_energy_j(device.idle_w, device.active_w, t1 - t0, busy_seconds(starts, durations))
        out[key] = joules / J_PER_WH
    return out


__all__ = ["check_power", "has_power_figures", "power_assumptions", "simulated_energy_wh"]
