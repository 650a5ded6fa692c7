"""Why a simulated deployment performs as it does: its bottleneck, from its own trace tables.

Agent time is split the way the tables record it: local model calls into waiting before the
prompt is processed (a free slot, the pool), prefill (llama.cpp's prompt time) and decode (first
to last token), failed local calls (mostly the KV pool running out), and the tasks' cloud model,
tool and harness time (``task_runs``). The bottleneck is:

* ``KV pool`` when at least 5 % of tasks hit a local context error (the pool or a slot's share
  of it filled up), or the pool peaked at 98 % or more and waiting is the largest share;
* otherwise the largest share among ``decode``, ``prefill``, ``slots`` (waiting for a slot),
  ``tools`` and ``cloud``; harness time (sandbox setup, verification) is reported, never blamed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from agbench.attempt import Endpoint
from agbench.records import ModelCall, TaskRun

KV_ERROR_SHARE = 0.05
KV_FULL = 0.98
CANDIDATES = ("decode", "prefill", "slots", "tools", "cloud")


@dataclass
class Bottleneck:
    name: str  # "KV pool", "decode", "prefill", "slots", "tools", "cloud", "none"
    text: str
    shares: dict[str, float] = field(default_factory=dict)  # of all agent time


def time_shares(tasks: Sequence[TaskRun], calls: Sequence[ModelCall]) -> dict[str, float]:
    """Seconds per kind of agent time, as fractions of their sum."""
    wait = prefill = decode = failed = 0.0
    for c in calls:
        if c.endpoint != Endpoint.LOCAL:
            continue
        if c.error_class or c.ttft_s is None:
            failed += c.total_s + c.queue_s
            continue
        prompt = (c.prompt_ms or 0.0) / 1000 if c.prompt_ms is not None else c.ttft_s
        prompt = min(prompt, c.ttft_s)
        wait += c.queue_s + c.ttft_s - prompt
        prefill += prompt
        decode += max(0.0, c.total_s - c.ttft_s)
    seconds = {
        "slots": wait,
        "prefill": prefill,
        "decode": decode,
        "failed local calls": failed,
        "tools": sum(t.tools_s for t in tasks),
        "cloud": sum(t.cloud_model_s for t in tasks),
        "harness": sum(t.other_s for t in tasks),
    }
    total = sum(seconds.values())
    return {k: (v / total if total > 0 else 0.0) for k, v in seconds.items()}


def explain(
    tasks: Sequence[TaskRun], calls: Sequence[ModelCall], kv_peak: float, kv_total: int
) -> Bottleneck:
    shares = time_shares(tasks, calls)
    hit = sum(1 for t in tasks if t.local_context_errors > 0)
    spread = ", ".join(
        f"{k} {100 * v:.0f}%" for k, v in sorted(shares.items(), key=lambda kv: -kv[1]) if v >= 0.005
    )
    largest = max(CANDIDATES, key=lambda k: shares[k])
    if tasks and (hit / len(tasks) >= KV_ERROR_SHARE or (kv_peak >= KV_FULL and largest == "slots")):
        return Bottleneck(
            "KV pool",
            f"KV pool: {hit} of {len(tasks)} tasks hit a local context error; the {kv_total:,}-token pool "
            f"peaked at {100 * kv_peak:.0f}% (agent time: {spread})",
            shares,
        )
    if shares[largest] <= 0:
        return Bottleneck("none", f"no agent time recorded ({spread or 'nothing ran'})", shares)
    kv = f"; KV peak {100 * kv_peak:.0f}% of {kv_total:,}" if kv_total else ""
    what = {
        "decode": "generating tokens on the local model",
        "prefill": "processing prompts on the local model",
        "slots": "waiting for a free local slot",
        "tools": "running tools",
        "cloud": "waiting on the cloud model",
    }[largest]
    return Bottleneck(
        largest,
        f"{largest}: {100 * shares[largest]:.0f}% of agent time is {what} (agent time: {spread}{kv})",
        shares,
    )


__all__ = ["CANDIDATES", "Bottleneck", "explain", "time_shares"]
