"""llama-server's batch loop (``prefill_scheduling = "iterations"``), as LocalServer runs it.

Why a module of its own: the loop's rules are llama.cpp's (tools/server/server-context.cpp,
``update_slots``), read from the source and checked against server logs (docs/design.md), and
they change apart from the fluid mechanics around them. Each iteration builds one batch: one
token per decoding sequence, then waiting prompt tokens in slot order up to ``n_batch``; it runs
to its end, and prompts that arrive meanwhile wait for the next. With a unified KV pool the
batch's cells are placed when it starts, which decides when the pool fails.

``BatchLoop`` is mixed into ``LocalServer``, whose state and helpers it uses (declared below for
the type checker).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from agbench.sim.entities.local_request import LocalRequest
from agbench.sim.profiles import ServerProfile, ServerRates

EPS = 1e-9


class BatchLoop:
    """The iterations of llama-server's loop: batch formation, room in the pool, rates."""

    settings: ServerProfile
    rates: ServerRates
    active: list[LocalRequest]
    pool_tokens: int
    speed: float
    prompt_tokens_total: float
    _n_batch: int
    _kv_unified: bool
    _idle_holds_kv: bool
    _idle_tokens: int
    _purge_on_full: bool
    _batch_tokens: dict[LocalRequest, float]
    _batch_left_s: float
    _batch_step_s: float

    if TYPE_CHECKING:  # LocalServer's

        def kv_in_use(self) -> float: ...
        def _purge_one_idle(self) -> bool: ...
        def _fail_all_in_flight(self) -> None: ...
        def _replan(self) -> None: ...
        def _schedule_next(self, next_dt: float, used: float, growth: float) -> None: ...
        def _saw(self, batch: int, kv_decoding: float, context: float, masked: float) -> None: ...

    def _room_for_prompt(self, decoding: int, wanted: float) -> float:
        """Cells a batch's prompt tokens may take: what the decoding sequences' next tokens
        (drafts included) leave of the pool, after purging idle slots one by one while that is
        less than ``wanted``."""
        reserve = decoding * (1.0 + self.settings.spec_draft_max) if decoding else 0.0
        room = self.pool_tokens - self.kv_in_use() - reserve
        while room < wanted and self._purge_on_full and self._purge_one_idle():
            room = self.pool_tokens - self.kv_in_use() - reserve
        return float(math.floor(room)) if room > 0 else 0.0

    def _end_batch_if_done(self) -> None:
        """The running batch ("iterations") is over: its prompt tokens are processed exactly."""
        if not self._batch_tokens or self._batch_left_s > EPS * max(1.0, self._batch_step_s):
            return
        for r, tokens in self._batch_tokens.items():
            if r in self.active and r.t_first is None:
                target_left = r.batch_left_at_start - tokens
                moved = r.prefill_left - target_left
                r.prefill_left = target_left if target_left > EPS else 0.0
                r.prefilled += moved
                self.prompt_tokens_total += moved
        self._batch_tokens = {}
        self._batch_left_s = 0.0

    def _start_batch(self, decoding: int, kv_decoding: float) -> None:
        """llama-server's next batch: decode tokens, then waiting prompts in slot order.

        With a unified pool the batch's cells are placed when it starts (``update_slots``:
        ``llama_decode`` on a full pool purges an idle slot, ``try_clear_idle_slots``, else
        retries with half the batch): the prompt tokens it takes are cut to the room left after
        the decoding sequences' tokens, so a batch never fails half-way, and a request that
        finishes in it frees its slot for purging before the next batch is placed."""
        budget = float(self._n_batch - decoding)
        if budget < 1.0:
            budget = 1.0
        waiting = sorted(
            (r for r in self.active if r.t_first is None and r.prefill_left > EPS),
            key=lambda r: r.slot.index if r.slot is not None else 0,
        )
        span = 0.0  # unified pool: the cells a prompt's attention spans (after any purge)
        if waiting and self._kv_unified:
            wanted = min(budget, sum(r.prefill_left for r in waiting))
            budget = min(budget, self._room_for_prompt(decoding, wanted))
            span = self.kv_in_use()
        tokens_in = 0.0
        ctx = 0.0
        for r in waiting:
            if budget <= 0:
                break
            take = min(r.prefill_left, budget)
            budget -= take
            r.batch_left_at_start = r.prefill_left
            self._batch_tokens[r] = take
            tokens_in += take
            ctx += (r.cached + r.prefilled + take / 2.0) * take
        if not self._batch_tokens:
            return
        rates = self.rates
        step = rates.decode_step(decoding, kv_decoding) if decoding else 0.0
        own = ctx / tokens_in
        step += tokens_in / rates.prefill_rate(own)
        masked = span + tokens_in / 2.0 - own if span else 0.0
        if span:
            step += rates.masked_s(masked, tokens_in)
        self._saw(decoding, kv_decoding, own, masked)
        self._batch_step_s = step
        self._batch_left_s = step

    def _plan_iterations(self) -> None:
        """``_plan_rates`` for prefill_scheduling = "iterations" (see ServerProfile)."""
        self._end_batch_if_done()
        rates = self.rates
        decoding: list[LocalRequest] = []
        kv_decoding = 0.0
        used = 0.0
        for r in self.active:
            held = r.held
            used += held
            r.rate_p = 0.0
            r.rate_d = 0.0
            if r.t_first is not None:
                decoding.append(r)
                kv_decoding += held
        batch = len(decoding)
        if self._idle_holds_kv:
            used += self._idle_tokens
        if not self._batch_tokens:
            self._start_batch(batch, kv_decoding)
            if not self._batch_tokens and not batch and self.active and self._kv_unified:
                # not one prompt token fits and nothing decodes that could free a cell:
                # llama.cpp's one-token batch fails ("Context size has been exceeded")
                self._fail_all_in_flight()
                self._replan()
                return
        next_dt = math.inf
        growth = 0.0
        speed = self.speed
        if self._batch_tokens:
            step = self._batch_step_s
            if speed > 0:
                next_dt = max(0.0, self._batch_left_s) / speed
            for r, tokens in self._batch_tokens.items():
                if r in self.active and r.t_first is None:
                    r.rate_p = speed * tokens / step
        else:
            step = rates.decode_step(batch, kv_decoding) if batch else 0.0
            self._saw(batch, kv_decoding, 0.0, 0.0)
        if batch and step > 0:
            decode_each = speed * rates.spec_tokens_per_step / step
            limit = next_dt * decode_each
            for r in decoding:
                r.rate_d = decode_each
                left = r.out_target - r.generated
                if left < limit:
                    next_dt = left / decode_each
                    limit = next_dt * decode_each
            growth += decode_each * batch
        # a running batch's cells, its decode tokens' included, were placed when it started
        # (_start_batch): the pool cannot fill before it ends
        self._schedule_next(next_dt, used, 0.0 if self._batch_tokens else growth)


__all__ = ["EPS", "BatchLoop"]
