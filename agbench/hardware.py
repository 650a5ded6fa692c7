"""A device's hardware inventory, as ``run.json`` records it and the report header shows it.

The paper compares devices by a table of CPU, memory, GPU and accelerator backend; every run
records the same fields so runs from different devices compare side by side. A field the
machine would not tell (RAM type needs root on most Linux systems, a GPU needs NVML) stays
empty, and ``notes`` says why, so an empty cell is never mistaken for "none". The live half
probes the machine (``agbench.live.monitors.inventory``); this module is only the shape.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any


@dataclass
class GpuInfo:
    """One GPU as its driver describes it."""

    name: str
    memory_bytes: int | None = None
    driver: str = ""
    power_limit_w: float | None = None  # the enforced board power limit, where NVML reports it

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GpuInfo:
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


@dataclass
class HardwareInventory:
    """What a device is: CPU, memory, GPUs, the accelerator backend and the energy sources.

    ``energy_sources`` maps ``gpu`` and ``cpu`` to the source the resource sampler reads
    (``nvml``, ``rapl``) or, where there is none, the reason; reports quote it beside empty
    energy columns.
    """

    cpu_model: str = ""
    cpu_cores: int | None = None  # physical cores
    cpu_threads: int | None = None  # logical CPUs
    ram_bytes: int | None = None
    ram_type: str = ""  # DDR5, LPDDR5, ... from SMBIOS where readable
    gpus: list[GpuInfo] = field(default_factory=list)
    accelerator: str = "cpu"  # the inference backend the hardware supports: cuda, rocm, metal, cpu
    energy_sources: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # what could not be read, and why

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HardwareInventory:
        """Read what any writer produced; unknown keys are dropped, absent ones default."""
        known = {f.name for f in dataclasses.fields(cls)} - {"gpus"}
        inv = cls(**{k: v for k, v in data.items() if k in known})
        inv.gpus = [GpuInfo.from_dict(g) for g in data.get("gpus") or [] if isinstance(g, dict)]
        return inv

    def summary_line(self) -> str:
        """One line for a report header: CPU, RAM, GPUs, backend."""
        cpu = self.cpu_model or "CPU model unknown"
        if self.cpu_cores or self.cpu_threads:
            cpu += f" ({self.cpu_cores or '?'} cores / {self.cpu_threads or '?'} threads)"
        ram = f"{self.ram_bytes / 2**30:.0f} GiB" if self.ram_bytes else "RAM size unknown"
        ram += f" {self.ram_type}" if self.ram_type else " (type unreadable)"
        gpus = (
            "; ".join(
                g.name
                + (f" {g.memory_bytes / 2**30:.0f} GiB" if g.memory_bytes else "")
                + (f", driver {g.driver}" if g.driver else "")
                for g in self.gpus
            )
            or "no GPU found"
        )
        return f"{cpu}; {ram}; {gpus}; backend {self.accelerator}"


__all__ = ["GpuInfo", "HardwareInventory"]
