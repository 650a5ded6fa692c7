"""One request to the simulated llama-server: what it asked for and how far it has got.

Between events the server advances every active request at the rates of the current batch
(``rate_p`` while its prompt is processed, ``rate_d`` while it decodes); the timestamps say
when it reached a slot, its first token and its end, which is all a trace row needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import simpy

from agbench.attempt import ErrorClass
from agbench.sim.schedulers.slot_policy import Slot


@dataclass(eq=False)
class LocalRequest:
    conv: object
    sys_key: object
    sys_tokens: int
    prompt_tokens: int
    max_tokens: int
    t_arrive: float
    done: simpy.Event
    slot: Slot | None = None
    cached: int = 0
    prefill_left: float = 0.0
    out_target: int = 0
    generated: float = 0.0
    prefilled: float = 0.0
    rate_p: float = 0.0
    rate_d: float = 0.0
    t_slot: float | None = None
    # when its prompt first took part in a batch (llama-server's ``t_start_process_prompt``,
    # set in ``update_slots``): after the batch running when it arrived; None where the
    # schedule starts prompts at once (its prompt time counts from ``t_slot``)
    t_prompt: float | None = None
    t_first: float | None = None
    t_done: float | None = None
    finish_reason: str = ""
    error_class: str = ""
    status_code: int = 200
    batch_left_at_start: float = 0.0  # prompt left when the current batch took it ("iterations")

    @property
    def held(self) -> float:
        """KV cells this request occupies now: its prompt so far and every generated token but
        the newest, which reaches the cache only when the next one is computed from it (the
        first comes from the prompt's last logits). llama-server releases a slot that
        generated n tokens after a p-token prompt with ``n_tokens = p + n - 1``."""
        return self.cached + self.prefilled + (self.generated - 1.0 if self.generated > 1.0 else 0.0)

    @property
    def completion_tokens(self) -> int:
        return round(self.generated)

    @property
    def client_error_class(self) -> str:
        """The error the live client reads from this reply (live/providers/chat_stream.py): the
        server's own, or the context edge. llama-server stops a sequence whose slot is full
        (``n_past + 1 >= n_ctx`` with context shift off) with ``finish_reason`` "length" and
        no error; short of ``max_tokens`` that can only be the slot's end, and the client
        records it as ``context_limit`` (per-slot pools reach it: 1,024 cells a slot, a
        1,020-token prompt, 4 tokens, then the task failed live)."""
        if self.error_class:
            return self.error_class
        if self.finish_reason == "length" and self.completion_tokens < self.max_tokens:
            return ErrorClass.CONTEXT_LIMIT.value
        return ""

    def call_figures(self, t0: float, now: float) -> dict[str, Any]:
        """The ``model_calls`` figures of this request as the live client records them, for a
        call sent at ``t0`` (TTFT and total from there; llama.cpp's own prompt/generation ms)."""
        start = self.t_prompt if self.t_prompt is not None else self.t_slot
        decode_s = (
            (self.t_done - self.t_first) if (self.t_first is not None and self.t_done is not None) else None
        )
        return {
            "ttft_s": (self.t_first - t0) if self.t_first is not None else None,
            "total_s": (self.t_done if self.t_done is not None else now) - t0,
            "prompt_tokens": self.prompt_tokens,
            "cached_tokens": self.cached,
            "completion_tokens": self.completion_tokens,
            "output_tok_s": (self.completion_tokens / decode_s) if decode_s else None,
            "prompt_ms": ((self.t_first - start) * 1000)
            if (self.t_first is not None and start is not None)
            else None,
            "predicted_ms": decode_s * 1000 if decode_s is not None else None,
            "finish_reason": self.finish_reason,
            "error_class": self.client_error_class,
            "status_code": self.status_code,
            "slot_id": self.slot.index if self.slot is not None else None,
        }


__all__ = ["LocalRequest"]
