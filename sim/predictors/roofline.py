"""Roofline predictor: server rates and memory fit from hardware specs and sourced efficiencies.

Used when no measured or calibrated ``[server.rates]`` exist (a device nobody here has). Every
number comes from physics plus an efficiency that a published llama.cpp measurement for that
GPU class and backend gives (each scenario file names its sources beside the values):

* **Decode** is bound by memory bandwidth: one step reads every weight once,
  ``t1 = weight bytes / (peak bandwidth x bandwidth_efficiency)``; ``bandwidth_efficiency``
  is a published single-sequence ``tg`` rate times the model's bytes over the peak.
* **Batching**: the decode kernels at small micro-batches are neither free nor compute bound;
  each extra token in the micro-batch adds ``batch_growth_per_token x t1`` (published
  llama.cpp micro-batch tables: ``pp512`` at ``n_ubatch`` = 1..8), up to
  ``vec_kernel_max_tokens`` (llama.cpp's mat-vec kernels serve up to 8 tokens; above, its
  tiled matmul kernels take about as long until compute bound). A sequence carries
  ``1 + drafts`` tokens through the model per step (the MTP draft head is one small layer).
  The batch can never be faster than its matmul work at the achieved compute rate
  (``2 x params x tokens / (peak FLOPS x compute_efficiency)``): that is the compute bound.
* **KV reads**: each step reads the batch's context, ``kv bytes per token / bandwidth``.
* **Speculative decoding (MTP)**: a step yields ``1 + drafts x acceptance`` tokens per
  sequence (llama.cpp's acceptance rate is accepted / drafted) and costs
  ``1 + spec_step_overhead`` plain steps at one sequence, the overhead being what a published
  MTP speedup at one sequence implies.
* **Prefill** is bound by compute: ``peak FLOPS x compute_efficiency / (2 x params)`` (the
  efficiency from a published ``pp512``), slowed by attention over the context.
* **Memory**: weights + runtime overhead + the KV pool (``kv bytes per token`` from the
  model's KV-bearing layers, KV heads, head size and cache type) must fit the device's memory.
"""

from __future__ import annotations

from dataclasses import dataclass

from agbench.errors import AgbenchError
from agbench.sim.profiles import DeviceProfile, ModelProfile, ServerProfile, ServerRates

GB = 1e9


@dataclass
class Roofline:
    device: DeviceProfile
    model: ModelProfile
    server: ServerProfile

    # ---- memory --------------------------------------------------------------------------
    def weight_gb(self) -> float:
        return float(self.model.weight_bytes / GB)

    def kv_capacity_tokens(self) -> int:
        """KV cells that fit: (memory - weights - overhead) / bytes per token."""
        free = (self.device.memory_gb - self.device.memory_overhead_gb) * GB - self.model.weight_bytes
        return max(0, int(free / self.model.kv_bytes_per_token))

    def memory_needed_gb(self, concurrency: int) -> float:
        """Weights + runtime overhead + the KV pool the server allocates at this concurrency."""
        pool = self.server.pool_tokens(concurrency) * self.model.kv_bytes_per_token / GB
        return float(self.weight_gb() + self.device.memory_overhead_gb + pool)

    def check_fits(self, concurrency: int, where: str = "scenario") -> None:
        """A one-line error when the server's KV pool at ``concurrency`` does not fit in memory."""
        pool = self.server.pool_tokens(concurrency)
        need = self.memory_needed_gb(concurrency)
        if need > self.device.memory_gb + 1e-9:
            raise AgbenchError(
                f"{where}: at concurrency {concurrency} the {pool:,}-token KV pool "
                f"({self.model.kv_bytes_per_token / 1024:.1f} KiB per token) + {self.weight_gb():.2f} GB of "
                f"weights + {self.device.memory_overhead_gb:g} GB overhead = {need:.2f} GB does not fit "
                f"{self.device.name}'s {self.device.memory_gb:g} GB (at most {self.kv_capacity_tokens():,} KV tokens fit)"
            )

    # ---- rates ---------------------------------------------------------------------------
    def bandwidth(self) -> float:
        """Achieved decode bandwidth, bytes/s."""
        return float(self.device.bandwidth_gb_s * GB * self.device.bandwidth_efficiency)

    def flops(self) -> float:
        """Achieved matmul throughput, FLOP/s."""
        return float(self.device.compute_tflops * 1e12 * self.device.compute_efficiency)

    def spec_tokens_per_step(self) -> float:
        """Tokens a sequence gains per step: 1 + drafts x acceptance (accepted / drafted)."""
        return float(1.0 + self.server.spec_draft_max * self.server.spec_acceptance)

    def weights_read_s(self) -> float:
        """One plain one-sequence decode step: every weight read once."""
        return float(self.model.weight_bytes / self.bandwidth())

    def rates(self) -> ServerRates:
        params = self.model.params_b * 1e9
        drafts = self.server.spec_draft_max
        t1 = self.weights_read_s()
        growth = self.device.batch_growth_per_token
        q_heads = self.model.q_heads or 4 * self.model.kv_heads
        attn_flops_per_ctx_token = 4 * self.model.layers * q_heads * self.model.head_dim
        prefill_tok_s = self.flops() / (2 * params)
        slowdown_per_k = attn_flops_per_ctx_token * 1000 / (2 * params)
        return ServerRates(
            prefill_tok_s=prefill_tok_s,
            prefill_ctx_slowdown_per_k=slowdown_per_k,
            # unified pool: a prompt's attention spans the other sequences' cells below its own
            # as well, masked but computed (the GPU FA kernels skip only the fully masked tail
            # of the KV range, llama.cpp PR #14924), at the same FLOPs per cell
            prefill_masked_token_s_per_k=slowdown_per_k / prefill_tok_s,
            decode_step_s=t1 * (1.0 + self.server.spec_step_overhead),
            # an extra sequence: 1 + drafts more tokens in the verifying micro-batch
            decode_step_per_seq_s=t1 * growth * (1 + drafts),
            decode_batch_saturation=(
                self.device.vec_kernel_max_tokens / (1 + drafts) if self.device.vec_kernel_max_tokens else 0.0
            ),
            decode_step_per_kv_token_s=self.model.kv_bytes_per_token / self.bandwidth(),
            decode_compute_per_seq_s=2 * params * (1 + drafts) / self.flops(),
            spec_tokens_per_step=self.spec_tokens_per_step(),
            source="roofline",
        )

    def assumptions(self, concurrency: int = 1) -> list[str]:
        d, m, s = self.device, self.model, self.server
        r = self.rates()
        cap = self.kv_capacity_tokens()
        lines = [
            f"weights: {m.params_b:g}B params x {m.weight_bits:g} bits = {self.weight_gb():.2f} GB",
            f"KV per token: 2 x {m.layers} layers x {m.kv_heads} KV heads x {m.head_dim} dims x "
            f"{m.kv_bits:g} bits = {m.kv_bytes_per_token / 1024:.1f} KiB",
            f"KV capacity: ({d.memory_gb:g} GB - {d.memory_overhead_gb:g} GB overhead - "
            f"{self.weight_gb():.2f} GB weights) / KV per token = {cap:,} tokens",
            f"server pool: {s.pool_tokens(concurrency):,} tokens, {s.slots(concurrency)} slots, "
            f"{'unified' if s.kv_unified else f'{s.slot_ctx(concurrency):,} per slot'}",
            f"decode: one step reads the weights at {d.bandwidth_gb_s:g} GB/s x {d.bandwidth_efficiency:g} "
            f"efficiency = {self.weights_read_s() * 1000:.2f} ms; with drafting and verifying "
            f"(+{s.spec_step_overhead:g}) {r.decode_step_s * 1000:.2f} ms",
            f"decode: +{r.decode_step_per_seq_s * 1000:.2f} ms per extra sequence "
            f"({1 + s.spec_draft_max} micro-batch tokens x {d.batch_growth_per_token:g} of a step, "
            f"growing up to {d.vec_kernel_max_tokens or 'any'} micro-batch tokens), "
            f"compute bound {r.decode_compute_per_seq_s * 1000:.2f} ms per sequence, "
            f"+{r.decode_step_per_kv_token_s * 1e6:.3f} us per KV token read",
            f"speculative decoding: {s.spec_draft_max} drafts at acceptance {s.spec_acceptance:g} "
            f"-> {r.spec_tokens_per_step:.2f} tokens per step",
            f"prefill: {d.compute_tflops:g} TFLOPS x {d.compute_efficiency:g} efficiency / "
            f"(2 x params) = {r.prefill_tok_s:,.0f} tok/s, "
            f"{r.prefill_ctx_slowdown_per_k:.3f} slower per 1k tokens of context (attention); "
            f"in a unified pool the other sequences' cells count too (masked, not skipped: "
            f"llama.cpp PR #14924 skips only the KV range's masked tail)",
        ]
        if s.pool_tokens(concurrency) > cap:
            lines.append(
                f"WARNING: the pool's {s.pool_tokens(concurrency):,} tokens exceed the {cap:,} that fit in memory"
            )
        if not d.gpu:
            lines.append(
                f"CPU-only: inference uses {s.threads} threads on {d.cores} cores shared with tools "
                f"(oversubscribed efficiency {s.oversubscribed_efficiency:g})"
            )
        return lines


__all__ = ["GB", "Roofline"]
