"""Roofline predictor: server rates and KV capacity from public hardware and model specs.

Used when no calibration exists (a device nobody here has). Decode is bound by memory
bandwidth (every step reads all weights once plus the batch's KV cache); prefill by compute
(2 FLOPs per parameter per token, plus attention over the context). Every number it derives
comes with a sentence saying how, so reports can print the assumptions next to predictions.
"""

from __future__ import annotations

from dataclasses import dataclass

from agbench.sim.profiles import DeviceProfile, ModelProfile, ServerProfile, ServerRates

GB = 1e9
# Decode steps overlap the per-sequence matmul work with the weight reads only partly; the
# share that does not overlap adds per extra sequence. 0.5 is a middle assumption between
# fully memory-bound (0) and fully serial (1); calibration replaces it on real devices.
COMPUTE_NOT_OVERLAPPED = 0.5


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

    # ---- rates ---------------------------------------------------------------------------
    def _bandwidth(self) -> float:
        return float(self.device.bandwidth_gb_s * GB * self.device.bandwidth_efficiency)

    def _flops(self) -> float:
        return float(self.device.compute_tflops * 1e12 * self.device.compute_efficiency)

    def spec_tokens_per_step(self) -> float:
        """Expected tokens per step with k drafts each accepted with probability a: sum a^i."""
        k, a = self.server.spec_draft_max, self.server.spec_acceptance
        expected = sum(a**i for i in range(k + 1))
        return float(expected / (1.0 + self.server.spec_step_overhead))

    def rates(self) -> ServerRates:
        params = self.model.params_b * 1e9
        width = 1 + self.server.spec_draft_max  # tokens verified per sequence per step
        weights_read_s = self.model.weight_bytes / self._bandwidth()
        per_seq_compute_s = 2 * params * width / self._flops()
        q_heads = self.model.q_heads or 4 * self.model.kv_heads
        attn_flops_per_ctx_token = 4 * self.model.layers * q_heads * self.model.head_dim
        return ServerRates(
            prefill_tok_s=self._flops() / (2 * params),
            prefill_ctx_slowdown_per_k=attn_flops_per_ctx_token * 1000 / (2 * params),
            decode_step_s=max(weights_read_s, per_seq_compute_s),
            decode_step_per_seq_s=per_seq_compute_s * COMPUTE_NOT_OVERLAPPED,
            decode_step_per_kv_token_s=self.model.kv_bytes_per_token / self._bandwidth(),
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
            f"efficiency = {r.decode_step_s * 1000:.2f} ms ({1 / r.decode_step_s:.1f} steps/s alone)",
            f"decode: +{r.decode_step_per_seq_s * 1000:.2f} ms per extra sequence "
            f"({COMPUTE_NOT_OVERLAPPED:g} of its matmul time not hidden behind weight reads), "
            f"+{r.decode_step_per_kv_token_s * 1e6:.3f} us per KV token read",
            f"speculative decoding: {s.spec_draft_max} drafts at acceptance {s.spec_acceptance:g}, "
            f"overhead {s.spec_step_overhead:g} -> {r.spec_tokens_per_step:.2f} tokens per step",
            f"prefill: {d.compute_tflops:g} TFLOPS x {d.compute_efficiency:g} efficiency / "
            f"(2 x params) = {r.prefill_tok_s:,.0f} tok/s, "
            f"{r.prefill_ctx_slowdown_per_k:.3f} slower per 1k tokens of context (attention)",
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


def main(argv: list[str] | None = None) -> int:
    """``python -m agbench.sim.predictors.roofline SCENARIO [C]``: print a scenario's roofline."""
    import sys

    from agbench.errors import AgbenchError
    from agbench.sim.scenario import load_scenario

    args = sys.argv[1:] if argv is None else argv
    if not args:
        print("usage: python -m agbench.sim.predictors.roofline SCENARIO|FILE [CONCURRENCY]", file=sys.stderr)
        return 2
    try:
        sc = load_scenario(args[0])
    except AgbenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    p = sc.profile
    print(f"{sc.name}: {p.device.name} running {p.model.name}")
    for line in Roofline(p.device, p.model, p.server).assumptions(int(args[1]) if len(args) > 1 else 1):
        print(f"  {line}")
    if p.server.rates is not None:
        print(
            f"  (the scenario sets [server.rates] from {p.server.rates.source!r}: those are used, not the roofline)"
        )
    return 0


__all__ = ["COMPUTE_NOT_OVERLAPPED", "Roofline", "main"]

if __name__ == "__main__":
    raise SystemExit(main())
