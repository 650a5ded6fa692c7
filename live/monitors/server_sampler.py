"""Sampling a local model server's state into ``server_samples`` (llama.cpp or vLLM).

llama.cpp's ``/metrics`` has cumulative token counters and the number of requests processing
and deferred, but no KV occupancy: that comes from ``/slots`` (each busy slot holds its prompt
plus what it has generated so far). vLLM's ``/metrics`` has running / waiting requests and the
KV cache usage as a fraction; without the pool size the fraction is stored in basis points
(``kv_used`` of ``kv_total`` = 10000) unless ``kv_total`` is given.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx

from agbench.attempt import Endpoint, RunScope
from agbench.live.monitors.sampler_thread import Sampler, SamplerThread, scope_ids
from agbench.live.monitors.thread_placement import PlacementSampler
from agbench.records import ServerSample


def parse_prometheus(text: str) -> dict[str, float]:
    """Metric name -> value, summed over label sets (enough for the gauges and counters we read)."""
    values: dict[str, float] = {}
    for line in text.splitlines():
        if not line or line[0] == "#":
            continue
        if "{" in line:  # label values may hold spaces: the value follows the closing brace
            name = line[: line.index("{")]
            rest = line[line.rindex("}") + 1 :].split()
        else:
            name, *rest = line.split()
        if not rest:
            continue
        try:
            value = float(rest[0])  # an optional timestamp may follow
        except ValueError:
            continue
        name = name.strip()
        values[name] = values.get(name, 0.0) + value
    return values


def _first(metrics: dict[str, float], *names: str) -> float | None:
    for name in names:
        if name in metrics:
            return metrics[name]
    return None


def slot_cells(slot: dict[str, Any]) -> int:
    """The cells a busy slot of llama.cpp's ``/slots`` holds: its prompt placed so far plus what
    it has generated.

    Builds differ in what ``n_prompt_tokens`` counts. Older ones give the request's prompt, so
    the generated tokens (``next_token.n_decoded``) are added to it; newer ones (those that also
    report ``n_prompt_tokens_processed`` and ``n_prompt_tokens_cache``, the request's new and
    cached prompt tokens) give the slot's token list, which grows with every token generated:
    measured on xllamacpp 2026.10's server, a 43-token prompt read 43, 44, 45 ... 101 while 58
    tokens were decoded. There the sum would count the output twice (agbench did until this
    was found: calibration/kv_reading.py tells such recordings apart). A count above the
    request's prompt is that token list, taken as it is."""
    decoded = 0
    next_tokens = slot.get("next_token") or []
    for nt in [next_tokens] if isinstance(next_tokens, dict) else next_tokens:
        if isinstance(nt, dict):
            decoded = max(decoded, int(nt.get("n_decoded") or 0))
    placed = int(slot.get("n_prompt_tokens") or 0)
    if "n_prompt_tokens_processed" in slot:
        prompt = int(slot.get("n_prompt_tokens_processed") or 0) + int(slot.get("n_prompt_tokens_cache") or 0)
        if placed > prompt:  # the slot's tokens: the output is in them already
            return placed
    return placed + decoded


def slot_state(slots: Any) -> tuple[int, int, int, int]:
    """(busy, total, kv cells in use by busy slots, sum of slot sizes) from llama.cpp ``/slots``."""
    if not isinstance(slots, list):
        return 0, 0, 0, 0
    busy = used = size = 0
    for slot in slots:
        if not isinstance(slot, dict):
            continue
        size += int(slot.get("n_ctx") or 0)
        if slot.get("is_processing"):
            busy += 1
            used += slot_cells(slot)
    return busy, len(slots), used, size


class ServerSampler(Sampler):
    """Polls ``url`` every ``interval_s`` and hands a ServerSample to ``writer`` (from a thread)."""

    def __init__(
        self,
        url: str,
        writer: Callable[[ServerSample], None],
        interval_s: float = 0.5,
        *,
        scope: RunScope | None = None,
        server: str = Endpoint.LOCAL,
        kv_total: int | None = None,
        unified_kv: bool = False,
        placement: tuple[PlacementSampler, int] | None = None,
    ) -> None:
        self.base = url.rstrip("/").removesuffix("/v1")
        self.writer = writer
        self.ids = scope_ids(scope)
        self.server = str(server)
        self.kv_total = kv_total
        self.unified_kv = unified_kv  # then every slot reports the whole pool as its n_ctx
        self.has_slots = True
        self._idle_slots: tuple[int, int] | None = None  # (slots, pool cells) once /slots answered
        self.placement = placement  # (the sampler watching the server's process, its pid)
        self._last_t = time.time()
        self._client = httpx.Client(timeout=max(1.0, interval_s * 4), trust_env=False)
        self._thread = SamplerThread(self.sample_once, interval_s, "agbench-server-sampler")

    def _close(self) -> None:
        self._client.close()

    def sample_once(self) -> ServerSample:
        t = time.time()
        response = self._client.get(self.base + "/metrics")
        response.raise_for_status()
        metrics = parse_prometheus(response.text)
        sample = ServerSample(**self.ids, server=self.server, t=t)
        if self.placement is not None:
            watching, pid = self.placement
            sample.threads_stacked = watching.stacked_share(pid, self._last_t, t)
        self._last_t = t
        if any(name.startswith("vllm:") for name in metrics):
            self._fill_vllm(sample, metrics)
        else:
            self._fill_llamacpp(sample, metrics)
        self.writer(sample)
        return sample

    def _fill_llamacpp(self, sample: ServerSample, metrics: dict[str, float]) -> None:
        sample.requests_processing = int(metrics.get("llamacpp:requests_processing", 0))
        sample.requests_waiting = int(metrics.get("llamacpp:requests_deferred", 0))
        cached = int(metrics.get("llamacpp:prompt_tokens_cached_total", 0))
        sample.prompt_tokens_cached_total = cached
        # llama.cpp's prompt_tokens_total excludes cached tokens; the table counts all of them.
        sample.prompt_tokens_total = int(metrics.get("llamacpp:prompt_tokens_total", 0)) + cached
        sample.generated_tokens_total = int(metrics.get("llamacpp:tokens_predicted_total", 0))
        if self.has_slots and sample.requests_processing == 0 and self._idle_slots is not None:
            # No slot processing: /slots would say busy 0 and no cells in use (only busy slots
            # hold cells here), and the pool's size does not change while the server runs. One
            # request a sample fewer: the sampler's own CPU at 2 Hz 0.52 -> 0.31 % of a core
            # (bench/monitor_cost.py, an idle server).
            sample.slots_busy, sample.kv_used = 0, 0
            sample.slots_total, sample.kv_total = self._idle_slots
        elif self.has_slots:
            response = self._client.get(self.base + "/slots")
            if response.status_code in (404, 501):
                self.has_slots = False  # slots endpoint off: counts from /metrics only
            else:
                response.raise_for_status()
                busy, total, used, size = slot_state(response.json())
                sample.slots_busy, sample.slots_total, sample.kv_used = busy, total, used
                sample.kv_total = self.kv_total or (size // max(1, total) if self.unified_kv else size)
                self._idle_slots = (total, sample.kv_total)
        if not self.has_slots:
            sample.slots_busy = sample.requests_processing
            sample.kv_total = self.kv_total or 0

    def _fill_vllm(self, sample: ServerSample, metrics: dict[str, float]) -> None:
        sample.requests_processing = int(metrics.get("vllm:num_requests_running", 0))
        sample.requests_waiting = int(metrics.get("vllm:num_requests_waiting", 0))
        sample.slots_busy = sample.requests_processing
        usage = _first(metrics, "vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc") or 0.0
        total = self.kv_total or 10000
        sample.kv_total = total
        sample.kv_used = round(usage * total)
        sample.prompt_tokens_total = int(metrics.get("vllm:prompt_tokens_total", 0))
        sample.generated_tokens_total = int(metrics.get("vllm:generation_tokens_total", 0))
        hits = _first(metrics, "vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total")
        sample.prompt_tokens_cached_total = int(hits or 0)
