"""Simulator parameters as flat dataclasses, and their TOML form (what calibration writes).

A *profile* says what a device does; a scenario (``scenario.py``) adds what to run on it.
The TOML layout of a profile file is one table per dataclass::

    [device]          DeviceProfile     memory, bandwidth, compute, cores, GPU or CPU-only
    [model]           ModelProfile      parameters, layers, KV heads, head dim, weight/KV bits
    [server]          ServerProfile     slots, KV pool, batch, slot policy, spec decoding
    [server.rates]    ServerRates       measured/fitted rates; absent -> roofline (predictors/roofline.py)
    [cloud]           CloudProfile      TTFT and output-rate distributions, prompt cache, prices
    [tools]           ToolProfile       how tool time maps onto CPU cores
    [behaviour]       BehaviourProfile  failure policies and cloud exposure per architecture
    [fit.<quantity>]  free-form goodness of fit and sample counts (kept, never interpreted)

Every field has a default so a partial file (e.g. only ``[server.rates]`` from a calibration)
overrides just what it names: ``Profile.merged`` lays one profile over another.
Units are in the field names (``_s`` seconds, ``_gb`` 10^9 bytes, ``_tok_s`` tokens/second).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import tomli_w

from agbench.config import PriceTable
from agbench.schema import COUNT, FRACTION, NON_NEGATIVE, POSITIVE, Bound
from agbench.sim.plain_data import deep_merge, from_plain, load_toml, to_plain
from agbench.status import Status


@dataclass
class DeviceProfile:
    """The hardware: what bounds inference (bandwidth, compute, memory) and tools (cores)."""

    name: str = "device"
    memory_gb: Annotated[float, Bound(gt=0, unit="GB")] = (
        16.0  # memory the model server can use (VRAM, or unified/system RAM)
    )
    bandwidth_gb_s: Annotated[float, Bound(gt=0, unit="GB/s")] = 50.0  # peak memory bandwidth
    compute_tflops: Annotated[float, Bound(gt=0, unit="TFLOPS")] = (
        1.0  # peak dense matmul throughput at the weights' compute precision
    )
    cores: Annotated[int, Bound(ge=1, unit="CPU cores")] = (
        2  # CPU cores shared by tools (and inference when gpu = false)
    )
    gpu: bool = False  # false: inference runs on the CPU cores, sharing them with tools
    memory_overhead_gb: Annotated[float, Bound(ge=0, unit="GB")] = (
        1.0  # runtime buffers, compute graph, OS share of unified memory
    )
    bandwidth_efficiency: Annotated[float, Bound(gt=0, le=1, unit="achieved / peak")] = (
        0.7  # achieved / peak bandwidth in decode
    )
    compute_efficiency: Annotated[float, Bound(gt=0, le=1, unit="achieved / peak")] = (
        0.4  # achieved / peak compute in prefill
    )
    # Decode kernels at small batches are neither free nor compute bound: each extra token in a
    # decode micro-batch adds this share of the one-token step (published llama.cpp micro-batch
    # tables for the GPU class and backend; predictors/roofline.py).
    batch_growth_per_token: Annotated[float, NON_NEGATIVE] = 0.0
    # Micro-batch tokens up to which llama.cpp decodes with its mat-vec kernels (8 on CUDA and
    # Vulkan); beyond it the tiled matmul kernels take about as long until compute bound. 0: no limit.
    vec_kernel_max_tokens: Annotated[int, Bound(ge=0, unit="tokens; 0 = no limit")] = 0
    # The energy model (sim/energy.py): the device draws idle_w while the local server is
    # idle and active_w while it serves a request. 0 = no figure: energy left empty.
    idle_w: Annotated[float, Bound(ge=0, unit="W")] = 0.0
    active_w: Annotated[float, Bound(ge=0, unit="W")] = 0.0
    sources: dict[str, str] = field(default_factory=dict)  # field -> where its value comes from


@dataclass
class ModelProfile:
    """The model's shape: enough to size weights, KV bytes per token and FLOPs per token."""

    name: str = "model"
    params_b: Annotated[float, Bound(gt=0, unit="billions of parameters")] = (
        0.135  # parameters, billions (dense: all active per token)
    )
    layers: Annotated[int, COUNT] = 30
    kv_heads: Annotated[int, COUNT] = 3
    head_dim: Annotated[int, COUNT] = 64
    weight_bits: Annotated[float, Bound(gt=0, le=64, unit="bits per weight")] = (
        4.5  # effective bits per weight incl. quantisation scales
    )
    kv_bits: Annotated[float, Bound(gt=0, le=64, unit="bits per value")] = (
        16.0  # 16 = f16 cache; 8.5 = q8_0 (32 values + one f16 scale per block)
    )
    q_heads: Annotated[int, Bound(ge=0, unit="0 = 4 x kv_heads")] = (
        0  # attention (query) heads; 0 = assume 4 x kv_heads (common GQA ratio)
    )
    max_output_tokens: Annotated[int, Bound(ge=1, unit="tokens")] = 8192
    sources: dict[str, str] = field(default_factory=dict)  # field -> where its value comes from

    @property
    def weight_bytes(self) -> float:
        return self.params_b * 1e9 * self.weight_bits / 8

    @property
    def kv_bytes_per_token(self) -> float:
        """K and V for every layer: 2 x layers x kv_heads x head_dim x bits / 8."""
        return 2 * self.layers * self.kv_heads * self.head_dim * self.kv_bits / 8


@dataclass
class ServerRates:
    """How fast the local server works, in the form the simulator integrates analytically.

    One decode *step* advances every decoding sequence by ``spec_tokens_per_step`` tokens and
    takes ``max(decode_step_s + decode_step_per_seq_s * (min(b, s) - 1), decode_compute_per_seq_s * b)
    + decode_step_per_kv_token_s * K`` seconds (``s`` = ``decode_batch_saturation`` when set) for a batch of ``b`` sequences holding ``K``
    context tokens in all: the weight reads (growing with the batch as the kernels do) or the
    batch's matmul work at the achieved compute rate, whichever bounds, plus the KV reads. Prompt tokens
    are processed at ``prefill_tok_s / (1 + prefill_ctx_slowdown_per_k * ctx / 1000)``.
    While prompts and decodes share the server, each step also carries a prompt chunk that
    fills the batch to ``n_batch`` tokens (llama.cpp's continuous batching), so decodes slow
    down during others' prefills. On CPU-only devices all of it scales with the CPU share the
    inference threads get (entities/cpu.py).
    """

    prefill_tok_s: Annotated[float, Bound(gt=0, unit="tokens/s")] = 200.0
    prefill_ctx_slowdown_per_k: Annotated[float, NON_NEGATIVE] = 0.0
    # Unified pool: a prompt batch's attention spans every cell the pool holds (llama.cpp's
    # ``get_n_kv``), the other sequences' cells masked, not skipped. Seconds per 1,000 such
    # masked cells, per prompt batch and per prompt token in it (measured: docs/design.md).
    prefill_masked_batch_s_per_k: float = 0.0
    prefill_masked_token_s_per_k: float = 0.0
    decode_step_s: Annotated[float, Bound(gt=0, unit="s")] = 0.0135
    decode_step_per_seq_s: Annotated[float, Bound(ge=0, unit="s")] = 0.0227
    decode_step_per_kv_token_s: Annotated[float, Bound(ge=0, unit="s")] = 0.0
    # The profile's decode step at each batch size it measured (the weights-and-overheads part;
    # the KV term is added on top): a CPU's batch-1 step takes a cheaper path than a linear fit
    # over all sizes says, and batch 2 a dearer one. Read between measured sizes as a power law
    # in the batch (``table_at_power``: straight in log step against log batch); past the last
    # one the step grows by ``decode_step_per_seq_s`` a sequence. Empty: the linear form.
    decode_table_batch: list[Annotated[float, Bound(ge=1, unit="sequences")]] = field(default_factory=list)
    decode_table_step_s: list[Annotated[float, Bound(ge=0, unit="s")]] = field(default_factory=list)
    decode_table_per_kv_token_s: list[Annotated[float, Bound(ge=0, unit="s")]] = field(default_factory=list)
    # Seconds a prompt batch costs beyond its tokens when no decode shares it (one llama_decode
    # call's fixed part: graph, synchronisation, the last token's logits); a batch with decodes
    # pays it inside the decode step. (The continuous "shared" schedule spreads it over the
    # n_batch tokens of its rate.)
    prefill_batch_s: Annotated[float, Bound(ge=0, unit="s")] = 0.0
    decode_compute_per_seq_s: Annotated[float, Bound(ge=0, unit="s")] = (
        0.0  # one sequence's matmul work per step at the achieved compute rate
    )
    decode_batch_saturation: Annotated[float, Bound(ge=0, unit="sequences; 0 = never")] = (
        0.0  # sequences beyond which the weight-read term stops growing; 0: never
    )
    spec_tokens_per_step: Annotated[float, Bound(ge=1, unit="tokens")] = (
        1.0  # tokens accepted per sequence per step (MTP/draft)
    )
    # Seconds per 1,000 tokens of a prompt-cache state restored into a slot
    # (``server_prompt_cache::load`` -> ``llama_state_seq_set_data`` on the server's loop, so
    # every slot waits): measured by the server profile's restore probe.
    restore_s_per_k_tokens: Annotated[float, NON_NEGATIVE] = 0.0
    # Seconds per 1,000 tokens of a slot's state copied to the prompt cache (``prompt_save``:
    # each idle slot not already cached at every task launch with --cache-idle-slots, and a
    # slot taken as least recently used), on the server's loop before the new prompt's first
    # batch: measured by the server profile's save probe (0: not charged).
    save_s_per_k_tokens: Annotated[float, NON_NEGATIVE] = 0.0
    source: str = "default"  # "roofline", "calibrated", "measured", ... (reports say it)
    sources: dict[str, str] = field(default_factory=dict)  # field -> where its value comes from

    def decode_step(self, batch: int, kv_tokens: float) -> float:
        if batch <= 0:
            return 0.0
        grows = (
            batch
            if self.decode_batch_saturation <= 0 or batch < self.decode_batch_saturation
            else self.decode_batch_saturation
        )
        weights = self.weights_step(grows)
        compute = self.decode_compute_per_seq_s * batch
        return (weights if weights >= compute else compute) + self.kv_slope(batch) * kv_tokens

    def batch_base_s(self, decoding: int, kv_tokens: float, prompt: bool) -> float:
        """A batch's time before its prompt tokens: the decode step when it carries decode
        tokens, else the prompt batch's fixed part when it carries a prompt, else nothing."""
        if decoding:
            return self.decode_step(decoding, kv_tokens)
        return self.prefill_batch_s if prompt else 0.0

    def prompt_batch_s(self, base: float, tokens: float, context: float, masked: float) -> float:
        """A batch's time with ``tokens`` prompt tokens in it: ``base`` (``batch_base_s``), the
        tokens at the prompt rate of their mean ``context``, and the other sequences' ``masked``
        cells their attention spans (a unified pool; 0 elsewhere)."""
        step = base + tokens / self.prefill_rate(context)
        if masked:
            step += self.masked_s(masked, tokens)
        return step

    def weights_step(self, batch: float) -> float:
        """A decode step's part that does not grow with the KV tokens, at ``batch`` sequences."""
        xs, ys = self.decode_table_batch, self.decode_table_step_s
        if not xs or len(xs) != len(ys):
            return self.decode_step_s + self.decode_step_per_seq_s * (batch - 1)
        return table_at_power(xs, ys, batch, self.decode_step_per_seq_s)

    def kv_slope(self, batch: float) -> float:
        """Seconds of a decode step per KV token the batch holds, at ``batch`` sequences."""
        xs, ys = self.decode_table_batch, self.decode_table_per_kv_token_s
        if not xs or len(xs) != len(ys):
            return self.decode_step_per_kv_token_s
        return table_at(xs, ys, batch, 0.0)

    def prefill_rate(self, ctx: float) -> float:
        return self.prefill_tok_s / (1.0 + self.prefill_ctx_slowdown_per_k * ctx / 1000.0)

    def masked_s(self, masked: float, tokens: float) -> float:
        """Extra seconds of a prompt batch of ``tokens`` tokens over ``masked`` other cells."""
        if masked <= 0.0:
            return 0.0
        return (
            masked / 1000.0 * (self.prefill_masked_batch_s_per_k + self.prefill_masked_token_s_per_k * tokens)
        )


def table_at(xs: list[float], ys: list[float], x: float, beyond: float) -> float:
    """A measured table read at ``x``: linear between its points, ``beyond`` per unit outside."""
    if x >= xs[-1]:
        return ys[-1] + beyond * (x - xs[-1])
    if x <= xs[0]:
        return max(0.0, ys[0] - beyond * (xs[0] - x))
    i = next(k for k in range(1, len(xs)) if x <= xs[k])
    return ys[i - 1] + (ys[i] - ys[i - 1]) * (x - xs[i - 1]) / (xs[i] - xs[i - 1])


def table_at_power(xs: list[float], ys: list[float], x: float, beyond: float) -> float:
    """The decode step table read at ``x`` sequences: between two measured sizes the power law
    through both (straight in log-log), outside them as ``table_at``. Why not straight lines:
    on a CPU the step grows less than in proportion to the batch (the weights read once serve
    every sequence), so the curve bends down, and a chord between distant sizes runs below it.
    Measured (``python bench/decode_batch_table.py``, the full-grid development profiles, only
    batch 1 and 8 kept, the sizes between predicted): a chord misses batch 2-6 by -22 to -1 %,
    the power law by -15 to +3 %; with batch 2 and 4 kept too, both are within -8 to +4 %."""
    if x >= xs[-1] or x <= xs[0]:
        return table_at(xs, ys, x, beyond)
    i = next(k for k in range(1, len(xs)) if x <= xs[k])
    lo, hi = ys[i - 1], ys[i]
    if lo <= 0.0 or hi <= 0.0:
        return table_at(xs, ys, x, beyond)
    share = math.log(x / xs[i - 1]) / math.log(xs[i] / xs[i - 1])
    return float(lo * (hi / lo) ** share)


@dataclass
class ServerProfile:
    """The local server as launched: llama.cpp's slot and KV-pool semantics."""

    engine: str = "llama.cpp"
    n_ctx: Annotated[int, Bound(ge=16, unit="KV tokens")] = 4096  # total KV cells (tokens)
    # > 0: the pool grows with the slots, n_ctx_per_slot each (what `agbench run` does by default:
    # 4,096 per slot); n_ctx is then ignored
    n_ctx_per_slot: Annotated[int, Bound(ge=0, unit="KV tokens per slot; 0 = use n_ctx")] = 0
    n_parallel: Annotated[int, Bound(ge=0, unit="slots; 0 = as many as the concurrency")] = (
        4  # slots; 0 = as many as the concurrency
    )
    kv_unified: bool = False  # one shared pool (each request may use all of it) vs n_ctx / n_parallel
    n_batch: Annotated[int, Bound(ge=1, unit="tokens")] = (
        512  # logical batch: prompt tokens per step while decodes share it
    )
    # physical batch (llama-server --ubatch-size): the most tokens one pass of the graph takes;
    # a per-slot pool cuts each batch into such passes by slot (entities/micro_batches.py)
    n_ubatch: Annotated[int, Bound(ge=1, unit="tokens")] = 512
    threads: Annotated[int, Bound(ge=1, unit="threads")] = (
        2  # inference threads (CPU-only devices compete with tools for cores)
    )
    # The live server kept compute thread i on core i (llama.cpp's --cpu-strict 1). Not a
    # mechanism here: the crowded and displaced speeds below carry it, and they hold only for
    # a profile measured with the same placement (calibration warns where it differs).
    cpu_strict: bool = False
    oversubscribed_efficiency: Annotated[float, FRACTION] = (
        0.5  # CPU-only: speed per allocated core when threads > cores given (0: speed = share**2)
    )
    # CPU-only: the server's speed (1 = alone) while one CPU-bound process of another
    # scheduling group (a sandboxed tool's session, entities/cpu.py) runs, measured with
    # ``displaced_thread_share`` of its threads left without a core; None = not measured, the
    # speed then falls in proportion to the cores it keeps. Threads that wait for each other at
    # every operation's barrier spin while one of them is off its core, so this is far below
    # the proportional value (measured here, two threads on two cores: 0.006).
    displaced_speed: Annotated[float | None, Bound(gt=0, le=1, unit="speed, 1 = alone")] = None
    displaced_thread_share: Annotated[float, Bound(gt=0, le=1, unit="threads without a core")] = 0.5
    # ...the same for decode steps and prompt batches apart, where the profile measured both
    # (a decode step's many short operations wait at the barriers far more often: measured
    # here, two threads on two cores, 0.005 against 0.047); None = ``displaced_speed`` for both
    displaced_decode_speed: Annotated[float | None, Bound(gt=0, le=1, unit="speed, 1 = alone")] = None
    displaced_prefill_speed: Annotated[float | None, Bound(gt=0, le=1, unit="speed, 1 = alone")] = None
    # CPU-only: the server's speed (1 = alone) with its threads given ``crowded_share`` of a core
    # each by the other members of its own scheduling group, measured by the profile for decode
    # steps and prompt batches apart: beside a busy loop (share cores / (threads + 1)) and beside
    # a twin server decoding (cores / (2 x threads)). Linear between the points and up to (1, 1),
    # below the lowest on the power law through it and (1, 1) (predictors/cpu_speed.py);
    # empty = ``oversubscribed_efficiency``'s form.
    crowded_share: list[Annotated[float, Bound(gt=0, le=1, unit="cores per thread")]] = field(
        default_factory=list
    )
    crowded_decode_speed: list[Annotated[float, Bound(gt=0, le=1, unit="speed, 1 = alone")]] = field(
        default_factory=list
    )
    crowded_prefill_speed: list[Annotated[float, Bound(gt=0, le=1, unit="speed, 1 = alone")]] = field(
        default_factory=list
    )
    # ...and the prompt speed per batch size where the profile measured several prompt lengths
    # at every point: one row per ``crowded_share``, one column per ``crowded_prefill_tokens``
    # (a short batch slows more: as many barriers for less work). Read linearly in log tokens,
    # held at the end columns beyond them; empty = ``crowded_prefill_speed`` at every size.
    crowded_prefill_tokens: list[Annotated[float, Bound(ge=1, unit="tokens a batch")]] = field(
        default_factory=list
    )
    crowded_prefill_speed_by_tokens: list[
        list[Annotated[float, Bound(gt=0, le=1, unit="speed, 1 = alone")]]
    ] = field(default_factory=list)
    slot_policy: Annotated[str, Bound(choices=("llama-cpp", "sticky"))] = (
        "llama-cpp"  # schedulers/: "llama-cpp" (longest common prefix, then LRU) or "sticky"
    )
    slot_prompt_similarity: Annotated[float, FRACTION] = 0.1  # llama.cpp --slot-prompt-similarity
    idle_cache_holds_kv: bool = False  # unified pool: idle slots' cached prefixes count as in use
    # llama-server's answer to a full unified pool (server-context.cpp, try_clear_idle_slots):
    # first purge idle slots' caches one by one (lowest slot id first), and only when no idle
    # slot holds anything fail every request in flight, clearing their caches too. Meant with
    # idle_cache_holds_kv = true; off: a full pool fails the requests in flight at once.
    purge_idle_on_full: bool = False
    # llama-server's host-memory prompt cache (--cache-ram, MiB; its default is 8,192; 0 = off):
    # a slot's state is saved there when the slot is given to another conversation, and restored
    # on whichever slot that conversation's next turn gets (entities/prompt_cache.py).
    prompt_cache_mib: Annotated[float, Bound(ge=0, unit="MiB; 0 = off")] = 8192.0
    # --cache-idle-slots (llama-server's default: on, with the prompt cache): every idle slot
    # not already cached is saved to the prompt cache when a task starts (rates'
    # save_s_per_k_tokens is the copy's time), and in a unified pool cleared, so idle
    # conversations hold no KV cells; a per-slot pool keeps them (clearing frees nothing).
    cache_idle_slots: bool = True
    # How waiting prompts share the server. "shared": every prompt being processed advances
    # at an equal share of the prefill throughput (fluid processor sharing). "iterations":
    # llama-server's loop: each iteration builds one batch (the decoding sequences' tokens,
    # then prompt tokens of the waiting slots in slot order up to n_batch), runs it to the
    # end, and only then looks at prompts that arrived meanwhile; prompt tokens of a batch are
    # done when the batch is. Decodes still advance one token per iteration.
    prefill_scheduling: Annotated[str, Bound(choices=("shared", "iterations"))] = "shared"
    # What a server sample reports as KV in use: "held" = cells filled so far (cached + prefilled
    # + generated); "slots" = what llama.cpp's /slots shows and the live sampler sums: each busy
    # slot's prompt tokens placed so far (a batch's from its start, cached ones included) plus
    # the tokens it has generated; "slots_output_twice" = the same with the generated tokens
    # counted twice, as agbench's sampler read llama.cpp builds whose /slots prompt count grows
    # with the output before it was fixed (calibration/kv_reading.py: how a recording tells).
    kv_sampled_as: Annotated[str, Bound(choices=("held", "slots", "slots_output_twice"))] = "held"
    # Time a request spends in the client, proxy and HTTP layer beyond the server's own
    # prompt + generation work (fitted: live total_s minus llama.cpp's timings); counted in
    # the call's TTFT and total time, as the live proxy measures them.
    request_overhead_s: Annotated[float, Bound(ge=0, unit="s")] = 0.0
    # Its coefficient of variation call to call (fitted): only a jittered run draws it
    # (sim/agents/timing_jitter.py).
    request_overhead_cv: Annotated[float, Bound(ge=0)] = 0.0
    spec_draft_max: Annotated[int, Bound(ge=0, unit="draft tokens")] = (
        0  # speculative decoding: draft tokens per step (MTP heads, draft model)
    )
    # llama.cpp's reported draft acceptance rate (accepted / drafted): 1 + drafts x this tokens per step
    spec_acceptance: Annotated[float, FRACTION] = 0.0
    # extra time of a one-sequence step that drafts and verifies, as a fraction of a plain step
    # (what a published MTP speedup at one sequence implies: (1 + drafts x acceptance) / speedup - 1)
    spec_step_overhead: Annotated[float, NON_NEGATIVE] = 0.0
    rates: ServerRates | None = None  # None: derive from device + model (predictors/roofline.py)
    sources: dict[str, str] = field(default_factory=dict)  # field -> where its value comes from

    def slots(self, concurrency: int) -> int:
        return self.n_parallel if self.n_parallel > 0 else max(1, concurrency)

    def pool_tokens(self, concurrency: int) -> int:
        """Total KV cells: ``n_ctx``, or ``n_ctx_per_slot`` per slot when that is set."""
        return self.n_ctx_per_slot * self.slots(concurrency) if self.n_ctx_per_slot > 0 else self.n_ctx

    def slot_ctx(self, concurrency: int) -> int:
        pool = self.pool_tokens(concurrency)
        return pool if self.kv_unified else pool // self.slots(concurrency)


@dataclass
class CloudProfile:
    """A cloud API: no contention, lognormal latencies, a provider prompt cache and prices."""

    name: str = "cloud"
    ttft_median_s: Annotated[float, Bound(gt=0, unit="s")] = 1.5
    ttft_sigma: Annotated[float, NON_NEGATIVE] = 0.4  # lognormal shape
    output_tok_s_median: Annotated[float, Bound(gt=0, unit="tokens/s")] = 60.0
    output_tok_s_sigma: Annotated[float, NON_NEGATIVE] = 0.25
    prefill_tok_s: Annotated[float, Bound(gt=0, unit="tokens/s")] = (
        20000.0  # uncached prompt tokens add to TTFT at this rate
    )
    cache_hit_p: Annotated[float, FRACTION] = (
        0.95  # the previous prompt of the same conversation is still cached
    )
    cache_block_tokens: Annotated[int, Bound(ge=1, unit="tokens")] = (
        64  # providers cache whole blocks of a prefix
    )
    system_prompt_cached: bool = True  # the shared system prompt stays cached across tasks
    prices: PriceTable = field(default_factory=PriceTable)
    # The live harness without an API key serves "cloud" calls from a second local llama-server
    # on the same cores (live/runner.py ``standin_server_settings``). With ``standin_local`` the
    # simulator does the same: a second LocalServer with the local server's rates, one slot per
    # concurrent task, ``standin_ctx_per_slot`` tokens per slot (not unified), sharing the CPU;
    # the lognormal fields above are then unused. Calibration sets it when run.json says
    # ``cloud_standin``; off (the default) the cloud is an uncontended API.
    standin_local: bool = False
    standin_ctx_per_slot: Annotated[int, Bound(ge=16, unit="KV tokens")] = 4096
    standin_threads: Annotated[int, Bound(ge=0, unit="threads; 0 = the local server's")] = (
        0  # inference threads of the stand-in; 0 = the local server's
    )
    # Leading tokens every consultation (HLL) shares: the consultant's own system prompt, which
    # a provider or the stand-in keeps in its prefix cache (fitted: cached tokens of consults).
    consult_prefix_tokens: Annotated[int, Bound(ge=0, unit="tokens")] = 0


@dataclass
class ToolProfile:
    """Tool processes: wall time from the workload, CPU demand shared by processor sharing."""

    default_cpu_fraction: Annotated[float, Bound(ge=0, unit="CPU s / wall s")] = (
        0.5  # cpu_s / wall_s when a step does not say
    )
    max_cores_per_tool: Annotated[float, Bound(gt=0, unit="cores")] = 1.0
    # Each tool process is a CPU scheduling group of its own (entities/cpu.py): bubblewrap's
    # --new-session under Linux autogroup, a Docker container's cgroup. False: tools share the
    # harness's group (no autogroup, or tools run unsandboxed in the harness's session).
    own_sched_group: bool = True
    wall_scale: Annotated[float, POSITIVE] = 1.0  # device-wide multiplier (e.g. a slower storage / CPU)
    # Fitted per tool (calibration): wall and CPU seconds of a call, used for trajectory steps
    # that record no time of their own (synthesised trajectories); empty = use the step's.
    wall_s_by_tool: dict[str, float] = field(default_factory=dict)
    cpu_s_by_tool: dict[str, float] = field(default_factory=dict)
    # Each tool's wall-time coefficient of variation across the calls calibration saw: a
    # jittered run draws a call's time around its mean with it (sim/agents/timing_jitter.py).
    wall_cv_by_tool: dict[str, float] = field(default_factory=dict)
    # Task categories whose tools are multi-threaded (builds, media conversion, numerical
    # code): the share of the device's cores such a tool keeps busy while it computes. Its
    # step's CPU seconds say how long it computes alone; concurrent tasks' tools then share
    # the cores (processor sharing) and stretch each other. Unnamed categories: one core.
    parallel_share_by_category: dict[str, float] = field(default_factory=dict)


@dataclass
class BehaviourProfile:
    """Explicit per-architecture failure policies and cloud exposure (DESIGN.md, sim)."""

    # The run's deadline override, shared by every agent of a task; None: each task's own limit
    # (agbench.task.task_deadline_s, the rule live runs use too).
    deadline_s: Annotated[float | None, Bound(gt=0, unit="s")] = None
    # The run's token caps per endpoint (``--local-max-tokens``, ``--cloud-max-tokens``; what
    # a replayed request asks for is capped by them live): a request generates at most this
    # many tokens; None: no cap. A replayed history still grows by the recorded output, as the
    # live replay agent pads it.
    local_max_tokens: Annotated[int | None, Bound(ge=1, unit="tokens")] = None
    cloud_max_tokens: Annotated[int | None, Bound(ge=1, unit="tokens")] = None
    lo_stop_on_context_error: bool = True  # the local agent does not compact its history
    hll_stop_on_context_error: bool = True
    hcl_redelegate_p: Annotated[float, FRACTION] = (
        0.9  # a failed delegation is tried again with this probability
    )
    hcl_redelegate_max: Annotated[int, NON_NEGATIVE] = (
        1000  # ... at most this often (the deadline usually ends it first)
    )
    hcl_failed_delegation_status: str = Status.VERIFICATION_FAILED.value  # when the cloud agent gives up
    # HCL's local sub-agent keeps its history across delegations ("persistent", the paper's)
    # or starts fresh each time ("fresh"): agbench.hcl_sub_agent, the live option of that name.
    hcl_sub_agent: Annotated[str, Bound(choices=("persistent", "fresh"))] = "persistent"
    hll_consult_on_context_error_p: Annotated[float, FRACTION] = (
        0.0  # HLL's local agent asks the cloud to finish instead
    )
    exposure_p: dict[str, float] = field(default_factory=lambda: {"CO": 0.76, "HCL": 0.70, "HLL": 0.18})
    sensitive_items_per_task: Annotated[int, NON_NEGATIVE] = 2
    harness_overhead_s: Annotated[float, Bound(ge=0, unit="s")] = (
        1.0  # sandbox setup + verification per task (counted as "other")
    )
    setup_share: Annotated[float, FRACTION] = (
        0.5  # the part of harness_overhead_s spent before the agent starts
    )
    harness_overhead_cv: Annotated[float, Bound(ge=0)] = 0.0  # attempt to attempt (fitted; jittered runs)
    # The harness's own time before each model request (building and sizing the request,
    # the proxy) when the trajectory records none (``think_s`` = 0): fitted by calibration.
    turn_gap_s: Annotated[float, Bound(ge=0, unit="s")] = 0.0
    # Of that gap, the CPU seconds the harness process burns on it (runs on the shared cores).
    turn_gap_cpu_s: Annotated[float, Bound(ge=0, unit="s")] = 0.0
    # The gap's coefficient of variation (fitted), drawn only by a jittered run.
    turn_gap_cv: Annotated[float, Bound(ge=0)] = 0.0


@dataclass
class Profile:
    """Everything the simulator needs to know about one device and its servers."""

    device: DeviceProfile = field(default_factory=DeviceProfile)
    model: ModelProfile = field(default_factory=ModelProfile)
    server: ServerProfile = field(default_factory=ServerProfile)
    cloud: CloudProfile = field(default_factory=CloudProfile)
    tools: ToolProfile = field(default_factory=ToolProfile)
    behaviour: BehaviourProfile = field(default_factory=BehaviourProfile)
    fit: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return dict(to_plain(self))

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "profile") -> Profile:
        return from_plain(cls, data, where)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(tomli_w.dumps(self.to_dict()))

    @classmethod
    def load(cls, path: Path) -> Profile:
        return cls.from_dict(load_toml(path), str(path))

    def merged(self, overlay: dict[str, Any]) -> Profile:
        """This profile with the tables/keys in ``overlay`` (a parsed TOML dict) laid over it."""
        return Profile.from_dict(deep_merge(self.to_dict(), overlay))


__all__ = [
    "BehaviourProfile",
    "CloudProfile",
    "DeviceProfile",
    "ModelProfile",
    "Profile",
    "ServerProfile",
    "ServerRates",
    "ToolProfile",
    "table_at",
    "table_at_power",
]
