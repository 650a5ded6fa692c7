"""Probing this machine's hardware inventory (CPU, RAM, GPUs, backend, energy sources).

What each field comes from: the CPU model from ``/proc/cpuinfo`` (else ``platform``), cores
and RAM size from psutil, the RAM type from the SMBIOS memory-device records (type 17) in
``/sys/firmware/dmi/entries`` (root only on most systems: then empty with a note), GPUs and
driver from NVML, and the energy sources from what the resource sampler can read (NVML,
RAPL). Nothing here fails a run: a field that cannot be read is left empty and noted.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path

import psutil

from agbench.hardware import HardwareInventory
from agbench.live.monitors.nvml import NvmlGpus
from agbench.live.monitors.rapl import POWERCAP_ROOT, RaplReader

DMI_ENTRIES = Path("/sys/firmware/dmi/entries")
# SMBIOS 3.x, "Memory Device (Type 17)", Memory Type field (offset 12h).
SMBIOS_MEMORY_TYPES = {
    0x12: "DDR",
    0x13: "DDR2",
    0x18: "DDR3",
    0x1A: "DDR4",
    0x1B: "LPDDR",
    0x1C: "LPDDR2",
    0x1D: "LPDDR3",
    0x1E: "LPDDR4",
    0x20: "HBM",
    0x21: "HBM2",
    0x22: "DDR5",
    0x23: "LPDDR5",
    0x24: "HBM3",
}


def cpu_model(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    try:
        for line in cpuinfo.read_text(errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("model name", "Model", "cpu model") and value.strip():
                return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def ram_type(entries: Path = DMI_ENTRIES) -> tuple[str, str]:
    """(the installed memory type, "") or ("", why it could not be read)."""
    if not entries.is_dir():
        return "", f"RAM type unreadable: {entries} does not exist"
    found: set[str] = set()
    try:
        for entry in sorted(entries.glob("17-*")):
            raw = (entry / "raw").read_bytes()
            size = int.from_bytes(raw[0x0C:0x0E], "little") if len(raw) > 0x0E else 0
            if len(raw) > 0x12 and size not in (0, 0xFFFF):  # an empty slot has size 0
                found.add(SMBIOS_MEMORY_TYPES.get(raw[0x12], f"SMBIOS type 0x{raw[0x12]:02x}"))
    except PermissionError:
        return "", f"RAM type unreadable: {entries} needs root"
    except OSError as exc:
        return "", f"RAM type unreadable: {exc}"
    if not found:
        return "", "RAM type unreadable: no populated SMBIOS memory device"
    return "/".join(sorted(found)), ""


def accelerator(gpus_found: bool) -> str:
    """The backend the hardware supports: CUDA with NVIDIA GPUs, ROCm where amdgpu's compute
    node exists, Metal on Apple silicon, else the CPU."""
    if gpus_found:
        return "cuda"
    if Path("/dev/kfd").exists():
        return "rocm"
    if platform.system() == "Darwin" and platform.machine() == "arm64":
        return "metal"
    return "cpu"


def probe(powercap_root: Path = POWERCAP_ROOT, dmi_entries: Path = DMI_ENTRIES) -> HardwareInventory:
    """This machine's inventory; never raises for a field it cannot read."""
    notes: list[str] = []
    inv = HardwareInventory(
        cpu_model=cpu_model(),
        cpu_cores=psutil.cpu_count(logical=False),
        cpu_threads=os.cpu_count(),
        ram_bytes=int(psutil.virtual_memory().total),
    )
    inv.ram_type, why = ram_type(dmi_entries)
    if why:
        notes.append(why)
    gpus, why = NvmlGpus.open()
    if gpus is None:
        inv.energy_sources["gpu"] = why
    else:
        try:
            inv.gpus = gpus.inventory()
            inv.energy_sources["gpu"] = gpus.energy_source()
        finally:
            gpus.close()
    inv.accelerator = accelerator(bool(inv.gpus))
    rapl = RaplReader(powercap_root)
    inv.energy_sources["cpu"] = "rapl (package energy counters)" if rapl.available else rapl.reason
    inv.notes = notes
    return inv


__all__ = ["DMI_ENTRIES", "SMBIOS_MEMORY_TYPES", "accelerator", "cpu_model", "probe", "ram_type"]
