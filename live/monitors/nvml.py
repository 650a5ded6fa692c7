"""NVIDIA GPUs through NVML (``pynvml``, from the ``nvidia-ml-py`` package).

``NvmlGpus.open()`` returns the open library or, where there is none, None and a reason (no
library, no driver, no device), so the resource sampler and the inventory work the same on a
machine without an NVIDIA GPU and say why their GPU fields are empty. A reading NVML does not
support on a GPU (power on some boards, the energy counter before Volta) stays None instead
of failing the whole sample.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from agbench.hardware import GpuInfo

T = TypeVar("T")


@dataclass
class GpuReading:
    """One sample over every GPU: mean utilisation, summed memory, power and energy, hottest."""

    util_percent: float | None = None
    mem_used_bytes: int | None = None
    power_w: float | None = None
    temp_c: float | None = None
    energy_j: float | None = None  # NVML's counter since the driver loaded


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _maybe(read: Callable[[], T]) -> T | None:
    try:
        return read()
    except Exception:  # NVMLError_NotSupported and kin: this reading is absent on this GPU
        return None


class NvmlGpus:
    """The machine's NVIDIA GPUs, open for sampling; ``close()`` shuts NVML down."""

    def __init__(self, nv: Any) -> None:
        self.nv = nv
        self.handles = [nv.nvmlDeviceGetHandleByIndex(i) for i in range(nv.nvmlDeviceGetCount())]

    @classmethod
    def open(cls) -> tuple[NvmlGpus | None, str]:
        """(the GPUs, "") or (None, why NVML gave none)."""
        try:
            nv = importlib.import_module("pynvml")
        except ImportError:
            return None, "no NVML: the nvidia-ml-py package (pynvml) is not installed"
        try:
            nv.nvmlInit()
        except Exception as exc:
            return None, f"no NVML: {_text(exc) or type(exc).__name__} (no NVIDIA driver?)"
        try:
            count = int(nv.nvmlDeviceGetCount())
            if count < 1:
                nv.nvmlShutdown()
                return None, "no NVML: the NVIDIA driver reports no GPU"
            return cls(nv), ""
        except Exception as exc:
            _maybe(nv.nvmlShutdown)
            return None, f"no NVML: {_text(exc) or type(exc).__name__}"

    def close(self) -> None:
        _maybe(self.nv.nvmlShutdown)
        self.handles = []

    def _each(self, read: Callable[[Any], T]) -> list[T | None]:
        """``read(handle)`` for every GPU, None where NVML does not support it."""
        out: list[T | None] = []
        for handle in self.handles:
            try:
                out.append(read(handle))
            except Exception:  # NVMLError_NotSupported and kin: absent on this GPU
                out.append(None)
        return out

    def read(self) -> GpuReading:
        nv = self.nv
        reading = GpuReading()
        if not self.handles:
            return reading
        utils = [
            u for u in self._each(lambda h: float(nv.nvmlDeviceGetUtilizationRates(h).gpu)) if u is not None
        ]
        mems = [m for m in self._each(lambda h: int(nv.nvmlDeviceGetMemoryInfo(h).used)) if m is not None]
        powers = self._each(lambda h: float(nv.nvmlDeviceGetPowerUsage(h)) / 1000.0)
        temps = [
            t
            for t in self._each(lambda h: float(nv.nvmlDeviceGetTemperature(h, nv.NVML_TEMPERATURE_GPU)))
            if t is not None
        ]
        energies = self._each(lambda h: float(nv.nvmlDeviceGetTotalEnergyConsumption(h)) / 1000.0)
        reading.util_percent = sum(utils) / len(utils) if utils else None
        reading.mem_used_bytes = sum(mems) if mems else None
        # Sums only when every GPU answered: a partial sum would understate the device.
        reading.power_w = sum(p for p in powers if p is not None) if None not in powers else None
        reading.energy_j = sum(e for e in energies if e is not None) if None not in energies else None
        reading.temp_c = max(temps) if temps else None
        return reading

    def inventory(self) -> list[GpuInfo]:
        nv = self.nv
        driver = _maybe(lambda: _text(nv.nvmlSystemGetDriverVersion())) or ""
        names = self._each(lambda h: _text(nv.nvmlDeviceGetName(h)))
        totals = self._each(lambda h: int(nv.nvmlDeviceGetMemoryInfo(h).total))
        limits = self._each(lambda h: float(nv.nvmlDeviceGetEnforcedPowerLimit(h)) / 1000.0)
        return [
            GpuInfo(name=name or "NVIDIA GPU", memory_bytes=total, driver=driver, power_limit_w=limit)
            for name, total, limit in zip(names, totals, limits, strict=True)
        ]

    def energy_source(self) -> str:
        """What the sampler's GPU energy comes from on these GPUs (or why there is none)."""
        reading = self.read()
        if reading.energy_j is not None:
            return "nvml (total energy counter)"
        if reading.power_w is not None:
            return "nvml (power, integrated over samples)"
        return "no GPU energy: NVML reports neither power nor energy on these GPUs"


__all__ = ["GpuReading", "NvmlGpus"]
