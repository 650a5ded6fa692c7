"""The one preset that turns a live llama-server's settings into the simulator's ``[server]``
table.

Why one function: calibration from an agent sweep (``calibrate``) and from a load run
(``load_fit``) both describe the same managed llama-server, and the simulator must model it
the same way whichever run it was fitted on. Written twice, the two copies drifted: only one of
them said that a unified pool keeps idle slots' cells and purges them when it fills. Each
behaviour below is llama.cpp's (tools/server/server-context.cpp), read from the source and
checked against server logs (docs/design.md, "What llama-server does with prefixes and the
pool").
"""

from __future__ import annotations

from typing import Any

from agbench.config import ServerSettings

#: How llama-server behaves whatever it was launched with.
LLAMA_SERVER_BEHAVIOUR: dict[str, Any] = {
    # The live sampler sums /slots (each busy slot's placed prompt + generated tokens): the
    # simulated samples are taken the same way, so peaks compare like for like.
    "kv_sampled_as": "slots",
    # llama-server only reuses a slot's cache when its prompt shares the prefix.
    "slot_policy": "llama-cpp",
    # llama-server runs one batch at a time; prompts that arrive wait for the next.
    "prefill_scheduling": "iterations",
}

#: Launch setting (``ServerSettings`` field) -> simulator ``[server]`` key.
SETTING_KEYS: tuple[tuple[str, str], ...] = (
    ("n_ctx", "n_ctx"),
    ("n_parallel", "n_parallel"),
    ("kv_unified", "kv_unified"),
    ("threads", "threads"),
    ("batch_size", "n_batch"),
    ("ubatch_size", "n_ubatch"),
    ("cpu_strict", "cpu_strict"),
)


def unified_pool_facts(kv_unified: bool) -> dict[str, Any]:
    """llama-server keeps idle slots' caches in a unified pool and purges them one by one when
    it fills, before failing the requests in flight (``try_clear_idle_slots``); per-slot pools
    have neither."""
    return {"idle_cache_holds_kv": True, "purge_idle_on_full": True} if kv_unified else {}


def server_table(settings: ServerSettings, *, n_parallel: int, n_ctx_per_slot: int) -> dict[str, Any]:
    """The ``[server]`` table of a llama-server launched with ``settings``.

    ``n_parallel`` is what the simulator should use for the slots (0: one per concurrent task,
    as the runner launches them unless told otherwise); ``n_ctx_per_slot`` > 0 says every
    level's pool was slots x that size, so extrapolating to more slots grows the pool as a run
    would."""
    table: dict[str, Any] = {
        "n_ctx": settings.n_ctx,
        "n_ctx_per_slot": n_ctx_per_slot,
        "n_parallel": n_parallel,
    }
    for field, key in SETTING_KEYS:
        if key not in table:
            table[key] = getattr(settings, field)
    return {**table, **LLAMA_SERVER_BEHAVIOUR, **unified_pool_facts(settings.kv_unified)}


def pool_table(settings: ServerSettings) -> dict[str, Any]:
    """The pool a live configuration was launched with, as ``[server]`` keys: what validation
    lays over a calibrated profile so each configuration is simulated on its own pool."""
    return {
        "n_ctx": settings.n_ctx,
        "n_ctx_per_slot": 0,  # the live run's own pool, as launched
        "n_parallel": settings.n_parallel,
        "kv_unified": settings.kv_unified,
        **unified_pool_facts(settings.kv_unified),
    }


__all__ = ["LLAMA_SERVER_BEHAVIOUR", "SETTING_KEYS", "pool_table", "server_table", "unified_pool_facts"]
