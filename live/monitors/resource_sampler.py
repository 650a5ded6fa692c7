"""Sampling the machine's CPU, memory, disk and network I/O (and NVML GPUs) into ``resource_samples``.

psutil is always there; NVML is used only if ``pynvml`` imports and initialises, so a machine
without a GPU (or without the library) samples the rest and leaves the GPU columns empty.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import psutil

from agbench.attempt import RunScope
from agbench.live.monitors.sampler_thread import Sampler, SamplerThread, scope_ids
from agbench.records import ResourceSample


def _nvml() -> Any:
    try:
        import pynvml

        pynvml.nvmlInit()
        count = pynvml.nvmlDeviceGetCount()
        if count < 1:
            return None
        return pynvml
    except Exception:  # no library, no driver, no device: sample without GPU columns
        return None


class ResourceSampler(Sampler):
    """Samples every ``interval_s`` and hands a ResourceSample to ``writer`` (from a thread)."""

    def __init__(
        self,
        writer: Callable[[ResourceSample], None],
        interval_s: float = 0.5,
        *,
        scope: RunScope | None = None,
        gpu: bool = True,
    ) -> None:
        self.writer = writer
        self.ids = scope_ids(scope)
        self._nv = _nvml() if gpu else None
        self._handles = (
            [self._nv.nvmlDeviceGetHandleByIndex(i) for i in range(self._nv.nvmlDeviceGetCount())]
            if self._nv
            else []
        )
        psutil.cpu_percent(interval=None)  # primes the counter: the first real sample covers one interval
        self._thread = SamplerThread(self.sample_once, interval_s, "agbench-resource-sampler")

    @property
    def has_gpu(self) -> bool:
        return bool(self._handles)

    def _close(self) -> None:
        if self._nv is not None:
            try:
                self._nv.nvmlShutdown()
            except Exception:
                pass
            self._nv = None
            self._handles = []

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
        if self._nv is not None and self._handles:
            util = used = 0.0
            for handle in self._handles:
                util += float(self._nv.nvmlDeviceGetUtilizationRates(handle).gpu)
                used += float(self._nv.nvmlDeviceGetMemoryInfo(handle).used)
            sample.gpu_util_percent = util / len(self._handles)
            sample.gpu_mem_used_bytes = int(used)
        self.writer(sample)
        return sample
