"""``agbench sim --explain SCENARIO``: the local server's throughput by batch size, with sources.

For batch sizes 1, 2, 4, 8, 16 and two context lengths per sequence, the decode rate per
sequence and in total and the prefill rate, computed with the very ``ServerRates`` the
simulator integrates (``resolve_rates``: measured/calibrated ``[server.rates]`` where the
scenario has them, else the roofline). Every input those numbers depend on is listed with
its value and the source the scenario file gives for it (``sources`` tables beside the
values); an input without one is printed as ``UNSOURCED``, which a test forbids for the
shipped scenarios.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import click

from agbench.errors import AgbenchError
from agbench.sim.predictors.fitted import resolve_rates
from agbench.sim.predictors.roofline import GB, Roofline
from agbench.sim.profiles import Profile, ServerRates
from agbench.sim.scenario import Scenario, load_scenario

BATCHES = (1, 2, 4, 8, 16)
UNSOURCED = "UNSOURCED"

# The inputs each column depends on: (table, field); "server.rates" = the measured table.
ROOFLINE_DECODE = (
    ("device", "bandwidth_gb_s"),
    ("device", "bandwidth_efficiency"),
    ("device", "batch_growth_per_token"),
    ("device", "vec_kernel_max_tokens"),
    ("device", "compute_tflops"),
    ("device", "compute_efficiency"),
    ("model", "params_b"),
    ("model", "weight_bits"),
    ("model", "layers"),
    ("model", "kv_heads"),
    ("model", "head_dim"),
    ("model", "kv_bits"),
    ("server", "spec_draft_max"),
    ("server", "spec_acceptance"),
    ("server", "spec_step_overhead"),
)
ROOFLINE_PREFILL = (
    ("device", "compute_tflops"),
    ("device", "compute_efficiency"),
    ("model", "params_b"),
    ("model", "layers"),
    ("model", "q_heads"),
    ("model", "head_dim"),
)
MEASURED_DECODE = (
    ("server.rates", "decode_step_s"),
    ("server.rates", "decode_step_per_seq_s"),
    ("server.rates", "decode_step_per_kv_token_s"),
    ("server.rates", "decode_table_batch"),
    ("server.rates", "decode_table_step_s"),
    ("server.rates", "decode_table_per_kv_token_s"),
    ("server.rates", "spec_tokens_per_step"),
)
MEASURED_PREFILL = (
    ("server.rates", "prefill_tok_s"),
    ("server.rates", "prefill_ctx_slowdown_per_k"),
    ("server.rates", "prefill_batch_s"),
)
MEMORY = (
    ("device", "memory_gb"),
    ("device", "memory_overhead_gb"),
    ("model", "params_b"),
    ("model", "weight_bits"),
    ("model", "layers"),
    ("model", "kv_heads"),
    ("model", "head_dim"),
    ("model", "kv_bits"),
    ("server", "n_ctx"),
    ("server", "n_ctx_per_slot"),
)
TOOLS = (("device", "cores"),)


@dataclass(frozen=True)
class ScalingRow:
    """One batch size at one context length: tokens/s, and what bounds the decode step."""

    context: int
    batch: int
    decode_per_seq: float
    decode_total: float
    prefill_total: float
    bound: str  # "bandwidth" | "compute" | "measured rates" | "exceeds pool"


@dataclass(frozen=True)
class Source:
    """One input of the table: where it lives, its value and where that value comes from."""

    table: str
    field: str
    value: Any
    source: str


def contexts(profile: Profile) -> tuple[int, int]:
    """Two context lengths per sequence: a short turn and a long history (bounded by the pool)."""
    pool = profile.server.pool_tokens(1)
    return min(1024, max(1, pool // 16)), min(16384, max(1, pool // 2))


def decode_bound(rates: ServerRates, batch: int) -> str:
    sat = rates.decode_batch_saturation
    grows = batch if sat <= 0 or batch < sat else sat
    weights = rates.weights_step(grows)
    return "compute" if rates.decode_compute_per_seq_s * batch > weights else "bandwidth"


def scaling_rows(profile: Profile) -> list[ScalingRow]:
    rates = resolve_rates(profile)
    rows: list[ScalingRow] = []
    for ctx in contexts(profile):
        for b in BATCHES:
            step = rates.decode_step(b, b * ctx)
            per_seq = rates.spec_tokens_per_step / step
            over = b * ctx > profile.server.pool_tokens(b)
            rows.append(
                ScalingRow(
                    ctx,
                    b,
                    per_seq,
                    b * per_seq,
                    rates.prefill_rate(ctx),
                    "exceeds pool"
                    if over
                    else (decode_bound(rates, b) if rates.source == "roofline" else f"{rates.source} rates"),
                )
            )
    return rows


def _table(profile: Profile, name: str) -> Any:
    if name == "server.rates":
        return profile.server.rates
    return getattr(profile, name)


#: Terms a profile may leave unset, and what the simulator does then (a scenario without a
#: server profile measures no table, so these have no source to name).
WHEN_UNSET = {
    "decode_table_batch": "not measured: the linear step form",
    "decode_table_step_s": "not measured: the linear step form",
    "decode_table_per_kv_token_s": "not measured: decode_step_per_kv_token_s at every batch",
    "prefill_batch_s": "not measured: 0, a prompt batch costs its tokens only",
}


def source_of(profile: Profile, table: str, field: str) -> Source:
    obj = _table(profile, table)
    value = getattr(obj, field)
    text = obj.sources.get(field, "") if obj is not None else ""
    if not text and field in WHEN_UNSET and not value:
        text = WHEN_UNSET[field]
    return Source(table, field, value, text or UNSOURCED)


def inputs(profile: Profile) -> dict[str, tuple[tuple[str, str], ...]]:
    """Column -> the inputs it depends on, for this profile's kind of rates."""
    measured = profile.server.rates is not None
    return {
        "decode": MEASURED_DECODE if measured else ROOFLINE_DECODE,
        "prefill": MEASURED_PREFILL if measured else ROOFLINE_PREFILL,
        "memory": MEMORY,
        "tools": TOOLS,
    }


def all_sources(profile: Profile) -> list[Source]:
    seen: dict[tuple[str, str], Source] = {}
    for keys in inputs(profile).values():
        for table, field in keys:
            seen.setdefault((table, field), source_of(profile, table, field))
    return list(seen.values())


def memory_line(profile: Profile, concurrency: int) -> str:
    roof = Roofline(profile.device, profile.model, profile.server)
    pool = profile.server.pool_tokens(concurrency)
    kv_gb = pool * profile.model.kv_bytes_per_token / GB
    need = roof.memory_needed_gb(concurrency)
    verdict = "fits" if need <= profile.device.memory_gb + 1e-9 else "DOES NOT FIT"
    return (
        f"memory at C = {concurrency}: weights {roof.weight_gb():.2f} GB + KV pool {kv_gb:.2f} GB "
        f"({pool:,} tokens x {profile.model.kv_bytes_per_token / 1024:.1f} KiB) + overhead "
        f"{profile.device.memory_overhead_gb:g} GB = {need:.2f} of {profile.device.memory_gb:g} GB: {verdict} "
        f"(at most {roof.kv_capacity_tokens():,} KV tokens fit)"
    )


#: The server's terms beyond the rate table, each listed with its value and where it comes from.
SERVER_TERMS = (
    (
        "server.rates",
        "prefill_masked_batch_s_per_k",
        "unified pool: other cells a prompt batch spans (up to the highest cell in use, holes "
        "included: get_n_kv), s per 1,000 per batch",
    ),
    (
        "server.rates",
        "prefill_masked_token_s_per_k",
        "unified pool: the same, s per 1,000 cells per prompt token",
    ),
    ("server.rates", "restore_s_per_k_tokens", "prompt-cache restore, s per 1,000 restored tokens"),
    (
        "server.rates",
        "save_s_per_k_tokens",
        "prompt-cache save at a launch (idle slots not yet cached, an LRU-taken slot), s per 1,000 tokens",
    ),
    ("server", "oversubscribed_efficiency", "CPU-only: speed per allocated core when threads lack cores"),
    ("server", "displaced_speed", "CPU-only: speed while another session's busy process takes a core"),
    ("server", "displaced_thread_share", "CPU-only: the share of threads displaced at that speed"),
    ("server", "displaced_decode_speed", "CPU-only: displaced_speed for decode steps alone"),
    ("server", "displaced_prefill_speed", "CPU-only: displaced_speed for prompt batches alone"),
    ("server", "crowded_share", "CPU-only: cores per thread its own group leaves it, where measured"),
    ("server", "crowded_decode_speed", "CPU-only: decode speed at each crowded_share"),
    ("server", "crowded_prefill_speed", "CPU-only: prompt speed at each crowded_share"),
    ("server", "crowded_prefill_tokens", "CPU-only: batch sizes the crowded prompt speed was measured at"),
    ("server", "crowded_prefill_speed_by_tokens", "CPU-only: prompt speed per crowded_share and batch size"),
    ("tools", "own_sched_group", "each tool a CPU scheduling group of its own (its session)"),
    ("server", "request_overhead_s", "client + HTTP time per request beyond the server's own work"),
    ("server", "request_overhead_cv", "its call-to-call spread (coefficient of variation; jittered runs)"),
    ("behaviour", "turn_gap_s", "the harness's own time before each model request"),
    ("behaviour", "turn_gap_cv", "its spread (jittered runs)"),
    ("behaviour", "harness_overhead_s", "sandbox setup + verification per task"),
    ("behaviour", "harness_overhead_cv", "its spread (jittered runs)"),
    ("tools", "wall_cv_by_tool", "each tool's wall-time spread across calls (jittered runs)"),
    ("server", "n_batch", "prompt tokens per batch (with the decode tokens)"),
    (
        "server",
        "n_ubatch",
        "tokens per pass; a per-slot pool cuts each batch into passes of consecutive slots "
        "(llama.cpp split_equal), one step each",
    ),
    (
        "server",
        "prefill_scheduling",
        "iterations: llama-server's loop (a batch, decode-only steps included, runs to its end "
        "before a new prompt starts); shared: fluid processor sharing",
    ),
    ("server", "slot_policy", "longest common prefix, then LRU (never-used slots: highest index)"),
    ("server", "idle_cache_holds_kv", "idle slots' cells count in a unified pool"),
    ("server", "purge_idle_on_full", "a full pool purges idle slots (lowest id first) before failing"),
    ("server", "prompt_cache_mib", "host-memory prompt cache (--cache-ram)"),
    (
        "server",
        "cache_idle_slots",
        "idle slots saved to the prompt cache at each launch (and cleared, in a unified pool)",
    ),
)


#: Terms calibration fits from the live runs' own times (calibration/harness_fit.py, usage_fit.py).
FITTED_HARNESS_TERMS = frozenset(
    {
        "request_overhead_s",
        "request_overhead_cv",
        "turn_gap_s",
        "turn_gap_cv",
        "harness_overhead_s",
        "harness_overhead_cv",
        "wall_cv_by_tool",
    }
)

#: How the profile crowded the server's threads at each measured share.
CROWDED_PROBES = {"cpu_twin": "beside a twin server decoding", "cpu_busy": "beside one busy core"}


def _save_source(measured: dict[str, Any], given: str) -> str:
    """save_s_per_k_tokens: a server profile's save probe, else the scenario's figure (a
    profile may predate the probe)."""
    save = measured.get("save", {})
    if "save_s_per_k_tokens" in save:
        held = ", ".join(f"{h:,}" for h in save.get("held_tokens", []))
        return (
            f"measured (server profile {measured.get('path', '')}, save probe, idle slots of {held} tokens)"
        )
    return given or "not measured: 0, no save charged"


def _busy_loop_source(measured: dict[str, Any], field: str) -> str:
    """The busy-loop probes' terms, where the profile measured them ('' otherwise)."""
    cpu = measured.get("cpu", {})
    if field == "oversubscribed_efficiency" and "oversubscribed_efficiency" in cpu:
        span = cpu.get("speed_range") or []
        at = f", share {cpu['share']:.2f}" if "share" in cpu else ""
        speed = f", speed {span[0]:.3f}-{span[1]:.3f}" if len(span) == 2 else ""
        calls = f", {cpu['samples']} calls" if "samples" in cpu else ""
        return f"measured (server profile {measured.get('path', '')}, one busy core{at}{speed}{calls})"
    if field in ("displaced_speed", "displaced_thread_share") and "displaced_speed" in cpu:
        calls = f", {cpu['displaced_samples']} calls" if "displaced_samples" in cpu else ""
        return (
            f"measured (server profile {measured.get('path', '')}, a busy loop in a session of its "
            f"own, {cpu.get('displaced_thread_share', 0):.2f} of the threads displaced, speed "
            f"{cpu['displaced_speed']:.4f}{calls})"
        )
    return ""


def term_source(profile: Profile, table: str, field: str) -> str:
    """measured (server profile, with its range), fitted (with its data), or assumption."""
    obj = _table(profile, table)
    given = getattr(obj, "sources", {}).get(field, "") if obj is not None else ""
    fit = profile.fit or {}
    measured = fit.get("server_profile", {})
    if table == "server.rates" and field == "save_s_per_k_tokens":
        return _save_source(measured, given)
    if table == "server.rates" and measured:
        ranges = measured.get("ranges", {})
        span = ranges.get("masked_cells") if "masked" in field else None
        where = f", masked cells {span[0]:,.0f}-{span[1]:,.0f}" if span and len(span) == 2 else ""
        level = measured.get("run_level", {})
        if level and field != "restore_s_per_k_tokens":
            kind = "decode" if field.startswith("decode") else "prefill"
            where += f"; x{level.get(kind, 1.0):.3f}: the run's C = 1 calls' level"
        return f"measured (server profile {measured.get('path', '')}{where})"
    cpu = measured.get("cpu", {})
    busy = _busy_loop_source(measured, field)
    if busy:
        return busy
    if (
        field in ("displaced_decode_speed", "displaced_prefill_speed")
        and field in cpu
        and "displaced_speed" in cpu
    ):
        return f"measured (server profile {measured.get('path', '')}, as displaced_speed, this kind of work alone)"
    tokens_table = field in ("crowded_prefill_tokens", "crowded_prefill_speed_by_tokens")
    if field.startswith("crowded_") and cpu.get("crowded_share") and (field in cpu or not tokens_table):
        probes = cpu.get("crowded_probes") or ["?"] * len(cpu["crowded_share"])
        points = ", ".join(
            f"{x:.2f} {CROWDED_PROBES.get(p, p)}" for x, p in zip(cpu["crowded_share"], probes, strict=False)
        )
        calls = f", {cpu['crowded_samples']} calls" if "crowded_samples" in cpu else ""
        return f"measured (server profile {measured.get('path', '')}, share {points}{calls})"
    if field == "displaced_speed" and getattr(obj, field, None) is None:
        return "not measured: the speed falls in proportion to the cores the threads keep"
    if field in ("displaced_decode_speed", "displaced_prefill_speed") and getattr(obj, field, None) is None:
        return "not measured apart: displaced_speed for both kinds of work"
    if tokens_table and not getattr(obj, field, None) and getattr(obj, "crowded_share", None):
        return "not measured per batch size: crowded_prefill_speed at every size"
    if field.startswith("crowded_") and not getattr(obj, field, None):
        return "not measured: oversubscribed_efficiency's one-factor form for both kinds of work"
    if table == "server.rates" and fit.get("server_prefill"):
        levels = ",".join(str(c) for c in fit.get("concurrency", []))
        samples = fit["server_prefill"].get("samples", "?")
        return f"fitted on the run's calls at C = {levels} ({samples} prefill samples)"
    if given:
        return given
    if field in FITTED_HARNESS_TERMS and fit.get("concurrency"):
        return f"fitted (the live runs' harness and tool times at C = {','.join(str(c) for c in fit['concurrency'])})"
    return "assumption (default or scenario value, not measured)"


def terms_lines(profile: Profile) -> list[str]:
    lines = ["terms (value, what it is, source):"]
    for table, field, what in SERVER_TERMS:
        obj = _table(profile, table)
        if obj is None or not hasattr(obj, field):
            continue
        lines.append(
            f"  {table}.{field} = {getattr(obj, field)}: {what}; {term_source(profile, table, field)}"
        )
    measured = (profile.fit or {}).get("server_profile", {})
    for name, span in measured.get("ranges", {}).items():
        if len(span) == 2:
            lines.append(
                f"  server profile measured {name} {span[0]:,.0f}-{span[1]:,.0f}: beyond it the rates extrapolate"
            )
    return lines


def rates_label(kind: str, sources: list[Source], refs: dict[tuple[str, str], str]) -> str:
    """The header's word for the rates, and which of its rate terms are not what that word
    says. Why: a scenario's rates are "measured" as a set while some of its terms are
    assumptions or left at zero (a 135M model's KV reads), and a header that said only
    "measured" read as if every number in the table were."""
    assumed = [
        refs[(s.table, s.field)]
        for s in sources
        if s.table == "server.rates" and s.source.lower().startswith(("assumption", "not measured"))
    ]
    if not assumed or kind == "roofline":
        return f"rates: {kind}"
    return f"rates: {kind}, but for {' '.join(assumed)}: assumed or not measured"


def render(scenario: Scenario) -> str:
    """The explain text: memory, the scaling table, and the source of every input."""
    p = scenario.profile
    rates = resolve_rates(p)
    sources = all_sources(p)
    refs = {(s.table, s.field): f"[{i + 1}]" for i, s in enumerate(sources)}
    cols = inputs(p)
    lines = [
        f"{scenario.name}: {p.device.name} running {p.model.name} ({rates_label(rates.source, sources, refs)})",
        memory_line(p, max(scenario.concurrency)),
        "",
        f"{'context':>8s} {'batch':>5s} {'decode tok/s per seq':>21s} {'decode tok/s total':>19s} "
        f"{'prefill tok/s':>14s}  decode bound",
    ]
    for r in scaling_rows(p):
        lines.append(
            f"{r.context:8,d} {r.batch:5d} {r.decode_per_seq:21.1f} {r.decode_total:19.1f} "
            f"{r.prefill_total:14,.0f}  {r.bound}"
        )
    lines += [
        "",
        "decode columns from " + " ".join(refs[k] for k in cols["decode"]),
        "prefill column from " + " ".join(refs[k] for k in cols["prefill"]),
        "memory line from " + " ".join(refs[k] for k in cols["memory"]),
        f"tools: the tool calls of concurrent tasks share the device's {p.device.cores} CPU cores by processor "
        "sharing (entities/cpu.py): a CPU-bound call slows when more run than there are cores "
        + " ".join(refs[k] for k in cols["tools"]),
    ]
    if not p.device.gpu:
        lines.append(
            "CPU-only: the rates above are on idle cores; inference shares those cores with the tools, "
            "which slows both in the simulation"
        )
    lines.append("sources:")
    for s in sources:
        lines.append(f"  {refs[(s.table, s.field)]} {s.table}.{s.field} = {s.value}: {s.source}")
    lines += terms_lines(p)
    return "\n".join(lines)


@click.command(
    help="Print a scenario's roofline assumptions (agbench sim --explain prints its scaling table)."
)
@click.argument("scenario")
@click.argument("concurrency", type=click.IntRange(min=1), default=1)
def cli(scenario: str, concurrency: int) -> None:
    try:
        sc = load_scenario(scenario)
    except AgbenchError as exc:
        raise click.ClickException(str(exc)) from None
    p = sc.profile
    click.echo(f"{sc.name}: {p.device.name} running {p.model.name}")
    for line in Roofline(p.device, p.model, p.server).assumptions(concurrency):
        click.echo(f"  {line}")
    if p.server.rates is not None:
        click.echo(
            f"  (the scenario sets [server.rates] from {p.server.rates.source!r}: those are used, not the roofline)"
        )


def main(argv: list[str] | None = None) -> int:
    """``python -m agbench.sim.predictors.explain SCENARIO [C]``; returns the exit status."""
    try:
        cli.main(args=argv, prog_name="python -m agbench.sim.predictors.explain")
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    return 0


__all__ = [
    "BATCHES",
    "UNSOURCED",
    "ScalingRow",
    "Source",
    "all_sources",
    "cli",
    "contexts",
    "inputs",
    "main",
    "memory_line",
    "render",
    "scaling_rows",
    "terms_lines",
]

if __name__ == "__main__":
    raise SystemExit(main())
