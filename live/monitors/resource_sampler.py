"""Sampling the machine's CPU, memory, disk and network I/O, NVML GPUs and RAPL energy into
``resource_samples``.

psutil is always there; NVML is used only if ``pynvml`` imports and initialises, and RAPL only
where ``/sys/class/powercap`` is readable, so a machine without a GPU (or without root) samples
the rest and leaves those columns empty. ``gpu_reason`` / ``cpu_energy_reason`` say why, for
run.json and the reports.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import psutil

from agbench.attempt import RunScope
from agbench.live.monitors.nvml import NvmlGpus
from agbench.live.monitors.rapl import POWERCAP_ROOT, RaplReader
from agbench.live.monitors.sampler_thread import Sampler, SamplerThread, scope_ids
from agbench.records import ResourceSample


class ResourceSampler(Sampler):
    """Samples every ``interval_s`` and hands a ResourceSample to ``writer`` (from a thread)."""

    def __init__(
        self,
        writer: Callable[[ResourceSample], None],
        interval_s: float = 0.5,
        *,
        scope: RunScope | None = None,
        gpu: bool = True,
        powercap_root: Path = POWERCAP_ROOT,
    ) -> None:
        self.writer = writer
        self.ids = scope_ids(scope)
        self._gpus: NvmlGpus | None = None
        self.gpu_reason = "GPU sampling turned off"
        if gpu:
            self._gpus, self.gpu_reason = NvmlGpus.open()
        self._rapl = RaplReader(powercap_root)
        self.cpu_energy_reason = self._rapl.reason
        psutil.cpu_percent(interval=None)  # primes the counter: the first real sample covers one interval
        self._thread = SamplerThread(self.sample_once, interval_s, "agbench-resource-sampler")

    @property
    def has_gpu(self) -> bool:
        return self._gpus is not None and bool(self._gpus.handles)

    @property
    def has_cpu_energy(self) -> bool:
        return bool(self._rapl.available)

    def _close(self) -> None:
        if self._gpus is not None:
            self._gpus.close()
            self._gpus = None

    def sample_once(self) -> ResourceSample:
        mem = psutil.virtual_memory()
        sample = ResourceSample(
            t=time.time(),
            cpu_percent=psutil.cpu_percent(interval=None),
            mem_used_bytes=int(mem.total - mem.available),
            mem_total_bytes=int(mem.total),
            **self.ids,
        )
        disk = psutil.disk_io_counters()
        if disk is not None:
            sample.disk_read_bytes, sample.disk_write_bytes = int(disk.read_bytes), int(disk.write_bytes)
        net = psutil.net_io_counters()
        if net is not None:
            sample.net_sent_bytes, sample.net_recv_bytes = int(net.bytes_sent), int(net.bytes_recv)
        gpus = self._gpus
        if gpus is not None and gpus.handles:
            reading = gpus.read()
            sample.gpu_util_percent = reading.util_percent
            sample.gpu_mem_used_bytes = reading.mem_used_bytes
            sample.gpu_power_w = reading.power_w
            sample.gpu_temp_c = reading.temp_c
            sample.gpu_energy_j = reading.energy_j
        if self._rapl.available:
            sample.cpu_energy_j = self._rapl.read_j()
        self.writer(sample)
        return sample
