"""A llama.cpp-style local model server as a fluid model: slots, KV pool, prefix cache, batching.

No per-token events: between two events (an arrival, a prompt finished, a reply finished, the
pool filling up, a change of CPU share) every active sequence advances at a rate fixed by the
current batch (``ServerRates``), so the next event time is computed in closed form and the
plan is redone whenever the batch changes.

llama.cpp's outcomes are reproduced as its server answers them (DESIGN.md, "What
llama-server answers under pressure"):

* a prompt that does not fit a slot (``prompt >= slot ctx``) -> HTTP 400, ``context_limit``;
* prompt + output reaching the slot size -> HTTP 200 with ``finish_reason = "length"``;
* a unified pool filled by concurrent requests -> HTTP 500 "Context size has been exceeded."
  for *every* request in flight (server.cpp fails all processing slots), ``context_limit``.
"""

from __future__ import annotations

import math
from collections import deque
from typing import TYPE_CHECKING, Any

import simpy

from agbench.attempt import ErrorClass
from agbench.sim.entities.batch_loop import EPS, PoolFacts, schedule_for
from agbench.sim.entities.cpu import ProcessorSharingCPU
from agbench.sim.entities.local_request import LocalRequest
from agbench.sim.entities.pool_layout import PoolLayout
from agbench.sim.entities.prompt_cache import RESTORE_FAILED, CachedPrompt, PromptCache
from agbench.sim.entities.server_state import ServerState
from agbench.sim.predictors.cpu_speed import ServerSpeed, server_speed
from agbench.sim.predictors.fitted import resolve_rates
from agbench.sim.profiles import Profile, ServerProfile, ServerRates
from agbench.sim.schedulers.slot_policy import Slot, common_prefix, slot_policy

if TYPE_CHECKING:
    from agbench.sim.entities.server_sampling import SampleHook


class LocalServer:
    """The fluid server; how prompt and decode work share its steps is its ``schedule``
    (batch_loop.py), which sees it only as a ``ScheduleHost``."""

    def __init__(
        self,
        env: simpy.Environment,
        settings: ServerProfile,
        rates: ServerRates,
        concurrency: int,
        cpu: ProcessorSharingCPU | None = None,
        sample_hook: SampleHook | None = None,
        sample_interval_s: float = 5.0,
        cpu_consumer: str = "inference",
        kv_bytes_per_token: float = 0.0,
    ) -> None:
        self.env = env
        self.settings = settings
        self.rates = rates
        self.slots = [Slot(i) for i in range(settings.slots(concurrency))]
        # Kept up to date on admit/release instead of scanned on every event. Slot token counts
        # are integers, so the running sum is exactly what a fresh sum would give.
        self._busy = 0
        self.idle_tokens = 0
        # Idle slots' cached prefixes count against a unified pool (llama.cpp keeps them).
        self.pool = PoolFacts.of(settings)
        self.schedule = schedule_for(settings)
        self.slot_ctx = settings.slot_ctx(concurrency)
        self.pool_tokens = settings.pool_tokens(concurrency)
        self.choose = slot_policy(settings.slot_policy)
        # --cache-ram: bounded in bytes, i.e. in tokens of this model's KV (unbounded when the
        # model's KV size is not given); never smaller than the pool, as llama.cpp's token limit
        self.prompt_cache: PromptCache | None = None
        if settings.prompt_cache_mib > 0:
            limit = settings.prompt_cache_mib * 2**20 / kv_bytes_per_token if kv_bytes_per_token > 0 else 0.0
            self.prompt_cache = PromptCache(max(limit, float(self.pool_tokens)) if limit else 0.0)
        # --cache-idle-slots: every launch saves the idle slots to the prompt cache, and in a
        # unified pool clears them (a per-slot pool keeps them: clearing frees nothing)
        self._save_idle_on_launch = bool(self.prompt_cache is not None and settings.cache_idle_slots)
        self._clear_idle_on_launch = self._save_idle_on_launch and bool(settings.kv_unified)
        # where a unified pool's cells sit: a prompt batch attends up to the highest one in use
        self.layout = (
            PoolLayout(self.pool_tokens, interleave=cpu is not None) if self.pool.kv_unified else None
        )
        self.queue: deque[LocalRequest] = deque()
        self.active: list[LocalRequest] = []
        self.cpu = cpu
        self.speed = ServerSpeed()
        if cpu is not None:
            cpu.add_consumer(cpu_consumer, self._on_cpu_share)
        self._cpu_consumer = cpu_consumer
        self._t = env.now
        self._generation = 0
        self.sample_hook = sample_hook
        self.sample_interval_s = sample_interval_s
        self._last_sample = -math.inf
        # "slots" sampling polls on a clock, as the live sampler polls /slots: one sample every
        # interval, of the state at that instant (not at the next event after it)
        self._grid_sampling = settings.kv_sampled_as != "held"
        # how many times a slot's generated tokens count in a sample (ServerProfile.kv_sampled_as)
        self._output_weight = 2.0 if settings.kv_sampled_as == "slots_output_twice" else 1.0
        self._next_grid = env.now
        # counters, as llama.cpp's /metrics has them
        self.prompt_tokens_total = 0.0
        self.prompt_tokens_cached_total = 0
        self.generated_tokens_total = 0.0
        self.context_errors = 0
        self.idle_purges = 0
        self.kv_peak = 0.0
        self.replans = 0
        # the largest operating point the rates were applied at (a server profile's measured
        # ranges are checked against these: engine.range_warnings)
        self.seen: dict[str, float] = {
            "decode_batch": 0.0,
            "decode_kv_tokens": 0.0,
            "prefill_context": 0.0,
            "masked_cells": 0.0,
        }
        self.lowest_thread_share = 1.0

    @classmethod
    def on_device(
        cls,
        env: simpy.Environment,
        profile: Profile,
        concurrency: int,
        cpu: ProcessorSharingCPU,
        *,
        settings: ServerProfile | None = None,
        **hooks: Any,
    ) -> LocalServer:
        """The profile's server on its device: fitted (or roofline) rates, the model's KV bytes
        per token (the prompt cache's RAM bound), and the CPU cores only where inference runs
        on them. ``settings`` replaces the profile's server (the cloud stand-in)."""
        return cls(
            env,
            settings or profile.server,
            resolve_rates(profile),
            concurrency,
            cpu=None if profile.device.gpu else cpu,
            kv_bytes_per_token=profile.model.kv_bytes_per_token,
            **hooks,
        )

    # ---- public ------------------------------------------------------------------------
    def state(self) -> ServerState:
        """What this server keeps for the next configuration that shares it (server_state.py)."""
        return ServerState.left(self.slots, self.prompt_cache, self.layout.cells if self.layout else None)

    def resume_from(self, state: ServerState) -> None:
        """Start from what an earlier configuration on this server left (a copy of it): its
        slots' conversations, its prompt cache and its cells. Before any request arrives."""
        if len(state.slots) != len(self.slots) or self.active or self.queue:
            raise ValueError("a server resumes only the state of one with its slots, before it starts")
        kept = state.copy()
        self.slots = kept.slots
        self.idle_tokens = sum(slot.tokens for slot in self.slots)
        if self.prompt_cache is not None and kept.prompt_cache is not None:
            self.prompt_cache = kept.prompt_cache
        if self.layout is not None and kept.cells is not None and kept.cells.size == self.layout.cells.size:
            self.layout.cells = kept.cells

    def submit(
        self, conv: object, sys_key: object, sys_tokens: int, prompt_tokens: int, max_tokens: int
    ) -> LocalRequest:
        req = LocalRequest(
            conv, sys_key, sys_tokens, prompt_tokens, max_tokens, self.env.now, self.env.event()
        )
        if prompt_tokens >= self.slot_ctx:  # checked on arrival: HTTP 400 exceed_context_size_error
            req.error_class, req.status_code, req.t_done = ErrorClass.CONTEXT_LIMIT.value, 400, self.env.now
            self.context_errors += 1
            req.done.succeed(req)
            return req
        self._advance()
        self.queue.append(req)
        self.replan()
        return req

    def cancel(self, req: LocalRequest) -> None:
        """The client went away (task deadline): free its slot, keep what it had cached."""
        if req.done.triggered:
            return
        self._advance()
        if req in self.queue:
            self.queue.remove(req)
        elif req in self.active:
            self.active.remove(req)
            self._release(req)
        req.error_class, req.t_done = "cancelled", self.env.now
        self.replan()

    def kv_in_use(self) -> float:
        used: float = 0
        for r in self.active:
            used += r.held
        if self.pool.idle_holds_kv:
            used += self.idle_tokens
        return used

    def kv_range(self) -> float:
        """The cells a prompt batch's attention spans now: in a unified pool up to the highest
        cell in use (``get_n_kv``, holes included; kv_cells.py), never fewer than the cells
        held. The map is synced here (pool_layout.py: prompt growth placed whole, decode tokens
        one per decoding slot per step)."""
        if self.layout is None:
            return self.kv_in_use()
        return max(float(self.layout.sync(self.slots, self.active)), self.kv_in_use())

    def interleaved_context(self, r: LocalRequest) -> float:
        """The cells of other sequences (and holes) a prompt batch of ``r`` attends over at full
        cost in a unified pool: those sharing its cells' 64-cell tiles (ggml-cpu's kernel,
        kv_cells.py); call after ``kv_range`` has synced the map."""
        if self.layout is None or not self.layout.interleave:  # a GPU server: other kernels
            return 0.0
        return float(self.layout.extra_context(r))

    def kv_sampled(self) -> float:
        """KV in use as a server sample reports it (``ServerProfile.kv_sampled_as``)."""
        if self.settings.kv_sampled_as == "held":
            return self.kv_in_use()
        return float(
            sum(self._placed_prompt(r, 0.0) + r.generated * self._output_weight for r in self.active)
        )

    def _placed_prompt(self, r: LocalRequest, dt: float) -> float:
        """A busy slot's ``n_prompt_tokens`` in llama-server's ``/slots``, ``dt`` after the last
        event: the prompt tokens placed so far (cached ones included), a batch's from its start
        (measured: a 2,000-token prompt read 256, 512, 768 ... in 256-token batches)."""
        if r.t_first is not None:
            return float(r.prompt_tokens)
        return self.schedule.placed_prompt(r, dt)

    def slots_busy(self) -> int:
        return self._busy

    def sample_figures(self, kv: float | None = None) -> dict[str, Any]:
        """A ``server_samples`` row's figures now (``kv``: the KV in use at a clock tick)."""
        return {
            "slots_busy": self._busy,
            "slots_total": len(self.slots),
            "kv_used": int(self.kv_sampled() if kv is None else kv),
            "kv_total": self.pool_tokens,
            "requests_processing": len(self.active),
            "requests_waiting": len(self.queue),
            "prompt_tokens_total": int(self.prompt_tokens_total),
            "prompt_tokens_cached_total": int(self.prompt_tokens_cached_total),
            "generated_tokens_total": int(self.generated_tokens_total),
        }

    # ---- fluid mechanics ---------------------------------------------------------------
    def _advance(self) -> None:
        now = self.env.now
        dt = now - self._t
        if dt > 0 and self._grid_sampling and self.sample_hook is not None and now >= self._next_grid:
            self._sample_grid(self._t, now)
        self._t = now
        if dt <= 0:
            return
        for r in self.active:
            if r.rate_p:
                step = r.rate_p * dt
                if r.prefill_left < step:
                    step = r.prefill_left
                r.prefill_left -= step
                r.prefilled += step
                self.prompt_tokens_total += step
            elif r.rate_d:
                step = r.rate_d * dt
                left = r.out_target - r.generated
                if left < step:
                    step = left
                r.generated += step
                self.generated_tokens_total += step
        self.schedule.advance(dt)

    def _sample_grid(self, since: float, now: float) -> None:
        """Samples at the clock ticks in (since, now]: between events every rate is constant,
        so each busy slot's placed prompt + generated tokens at a tick is known exactly."""
        assert self.sample_hook is not None
        while self._next_grid <= now:
            t = self._next_grid
            kv = 0.0
            for r in self.active:
                dt = t - since if t > since else 0.0
                generated = r.generated + r.rate_d * dt
                kv += self._placed_prompt(r, dt) + min(generated, float(r.out_target)) * self._output_weight
            self.sample_hook(self, t=t, kv=kv)
            self._next_grid = t + self.sample_interval_s

    def _release(self, req: LocalRequest) -> None:
        slot = req.slot
        assert slot is not None
        slot.busy = False
        slot.tokens = int(req.held)
        slot.last_used = self.env.now
        self._busy -= 1
        self.idle_tokens += slot.tokens
        if self.layout is not None and self.layout.interleave:  # placed now, beside the others' cells
            self.layout.served(slot, req)
            self.layout.sync(self.slots, self.active)

    def _finish(self, req: LocalRequest) -> None:
        self.active.remove(req)
        self._release(req)
        req.t_done = self.env.now
        if not req.error_class:
            req.finish_reason = "length" if req.out_target < req.max_tokens else "stop"
        req.done.succeed(req)

    def _admit(self, req: LocalRequest) -> None:
        idle = [s for s in self.slots if not s.busy]
        slot = self.choose(
            idle,
            req.conv,
            req.sys_key,
            req.sys_tokens,
            req.prompt_tokens,
            self.settings.slot_prompt_similarity,
        )
        if self.prompt_cache is not None:
            copied = self._swap_through_prompt_cache(slot, req)
            if self._save_idle_on_launch:
                for other in idle:
                    if other is not slot and other.tokens > 0:
                        copied += self._save_slot(other)
                        if self._clear_idle_on_launch:
                            self._clear_slot(other)
            # the copies run on the server's loop before the next batch: every slot waits
            self.schedule.stall(copied * self.rates.save_s_per_k_tokens / 1000.0)
        cached = common_prefix(slot, req.conv, req.sys_key, req.sys_tokens, req.prompt_tokens)
        cached = max(
            0, min(cached, req.prompt_tokens - 1)
        )  # llama.cpp always evaluates the last prompt token
        if self.pool.kv_unified and not self.pool.purge_on_full:
            # a reclaimed prefix only survives as far as the pool has room (with purging, the
            # slot's own cells are still in the pool: it keeps what it shares)
            cached = max(0, min(cached, int(self.pool_tokens - self.kv_in_use()) - 1))
        self._busy += 1
        self.idle_tokens -= slot.tokens
        slot.busy, slot.conv, slot.sys_key, slot.sys_tokens = True, req.conv, req.sys_key, req.sys_tokens
        slot.tokens = cached
        req.slot, req.cached, req.t_slot = slot, cached, self.env.now
        req.prefill_left = float(req.prompt_tokens - cached)
        req.out_target = max(0, min(req.max_tokens, self.slot_ctx - req.prompt_tokens))
        self.prompt_tokens_cached_total += cached
        self.active.append(req)

    def replan(self) -> None:
        self.replans += 1
        now = self.env.now
        self.schedule.settle(self)
        for r in list(self.active) if self.active else ():
            if r.t_first is None and r.prefill_left <= EPS:
                r.prefill_left, r.t_first = 0.0, now
            if r.t_first is not None and r.generated >= r.out_target - EPS:
                r.generated = float(r.out_target)
                self._finish(r)
        if (
            self.pool.kv_unified
            and self.active
            and self.kv_in_use() >= self.pool_tokens - EPS
            and (not self.pool.purge_on_full or not self._purge_idle_until_room(self.pool_tokens - EPS))
        ):
            self.fail_all_in_flight()
        n_slots = len(self.slots)
        while self.queue and self._busy < n_slots:
            self._admit(self.queue.popleft())
        if self.cpu is not None:
            demand = float(self.settings.threads) if self.active else 0.0
            allocated = self.cpu.set_demand(self._cpu_consumer, demand)
            self._set_speed(allocated, self.cpu.displaced(self._cpu_consumer))
        self._plan_rates()

    def fail_all_in_flight(self) -> None:
        for r in list(self.active):
            r.error_class, r.status_code = ErrorClass.CONTEXT_LIMIT.value, 500
            self.context_errors += 1
            self._finish(r)
            if self.pool.purge_on_full and r.slot is not None:  # llama.cpp clears their prompts
                self._clear_slot(r.slot)

    def _save_slot(self, slot: Slot) -> int:
        """``prompt_save``: the tokens copied to the prompt cache (0 where it holds them)."""
        assert self.prompt_cache is not None
        return self.prompt_cache.save(CachedPrompt(slot.conv, slot.sys_key, slot.sys_tokens, slot.tokens))

    def _swap_through_prompt_cache(self, slot: Slot, req: LocalRequest) -> int:
        """``get_available_slot``'s cache update: when the slot was taken as the least recently
        used one, or would keep under half of its tokens, its state goes to the prompt cache and
        the best cached state for the new prompt (if better than what the slot holds) comes back.
        Returns the tokens the save copied."""
        assert self.prompt_cache is not None
        lcp = common_prefix(slot, req.conv, req.sys_key, req.sys_tokens, req.prompt_tokens)
        by_similarity = (
            slot.tokens > 0
            and req.prompt_tokens > 0
            and lcp / req.prompt_tokens > self.settings.slot_prompt_similarity
        )
        if by_similarity and lcp / slot.tokens >= 0.5:
            return 0
        base = (
            CachedPrompt(slot.conv, slot.sys_key, slot.sys_tokens, slot.tokens) if slot.tokens > 0 else None
        )
        copied = self.prompt_cache.save(base) if base is not None else 0
        # the slot's own cells make way for the restored state; every other slot keeps its own
        own = slot.tokens if self.pool.idle_holds_kv else 0
        room = self.pool_tokens - (self.kv_in_use() - own) if self.pool.kv_unified else math.inf
        restored = self.prompt_cache.load(
            base, req.conv, req.sys_key, req.sys_tokens, req.prompt_tokens, room
        )
        if restored is RESTORE_FAILED:
            self._clear_slot(slot)
        elif restored is not None:
            # llama_state_seq_set_data on the server's loop: the next batch waits for it
            self.schedule.stall(restored.tokens * self.rates.restore_s_per_k_tokens / 1000.0)
            self.idle_tokens += restored.tokens - slot.tokens
            slot.conv, slot.sys_key, slot.sys_tokens, slot.tokens = (
                restored.conv,
                restored.sys_key,
                restored.sys_tokens,
                restored.tokens,
            )
        return copied

    def _clear_slot(self, slot: Slot) -> None:
        if self.layout is not None and self.layout.interleave:  # its cells placed where they were
            self.layout.sync(self.slots, self.active)
        self.idle_tokens -= slot.tokens
        slot.tokens = 0
        slot.conv = slot.sys_key = None

    def purge_one_idle(self) -> bool:
        """``try_clear_idle_slots``: clear the lowest idle slot holding cells (not saved to the
        prompt cache); False when no idle slot holds any."""
        victim = next((s for s in self.slots if not s.busy and s.tokens > 0), None)
        if victim is None:
            return False
        self._clear_slot(victim)
        self.idle_purges += 1
        return True

    def finish_due_decoders(self) -> int:
        """Answer every decoding request within one token of its end: its last token was in the
        batch just run (its decode view comes first), and llama.cpp answers a view's finished
        requests before it places the next view (the fluid fraction of a token is not
        llama.cpp's). Returns how many were answered."""
        answered = 0
        for r in list(self.active):
            if r.t_first is not None and r.out_target - r.generated <= 1.0:
                self.generated_tokens_total += r.out_target - r.generated
                r.generated = float(r.out_target)
                self._finish(r)
                answered += 1
        return answered

    def _purge_idle_until_room(self, full: float) -> bool:
        """Purge idle slots' caches, lowest id first, until the pool is below ``full``;
        False when it is still full with no idle cache left (then requests must fail).

        A decoding request within one token of its end finishes first: llama.cpp places the
        step's tokens in halving sub-batches and answers each sub-batch's finished requests
        before the next is placed, so a request whose last token is due in the step that fills
        the pool completes, and its slot becomes the idle one purged to make room."""
        for r in list(self.active):
            if r.t_first is not None and r.out_target - r.generated <= 1.0 and self.kv_in_use() >= full:
                self.generated_tokens_total += r.out_target - r.generated
                r.generated = float(r.out_target)
                self._finish(r)
        while self.kv_in_use() >= full:
            if not self.purge_one_idle():
                return False
        return True

    def _on_cpu_share(self, allocated: float, displaced: float) -> None:
        self._advance()
        self._set_speed(allocated, displaced)
        self._plan_rates()

    def _set_speed(self, allocated: float, displaced: float) -> None:
        self.speed = server_speed(self.settings, allocated, displaced)
        if self.active and self.settings.threads > 0:
            # the least of a core each thread had while working (checked against the crowded
            # shares the profile measured: engine.range_warnings)
            share = min(1.0, (allocated + displaced) / float(self.settings.threads))
            self.lowest_thread_share = min(self.lowest_thread_share, share)

    def _plan_rates(self) -> None:
        self.schedule.plan(self)

    def saw(self, batch: int, kv_decoding: float, context: float, masked: float) -> None:
        """The largest inputs the rates were used at (checked against the profile's range)."""
        for key, value in (
            ("decode_batch", float(batch)),
            ("decode_kv_tokens", kv_decoding),
            ("prefill_context", context),
            ("masked_cells", masked),
        ):
            self.seen[key] = max(self.seen[key], value)

    def schedule_next(self, next_dt: float, used: float, growth: float) -> None:
        """After a re-plan: the KV peak, the moment a unified pool fills (if sooner than
        ``next_dt``), the one wake-up, and the periodic sample."""
        if used > self.kv_peak:
            self.kv_peak = used
        if self.pool.kv_unified and growth > 0:
            full_in = (self.pool_tokens - used) / growth
            if full_in < next_dt:
                next_dt = full_in
        self._generation += 1
        if next_dt < math.inf:
            # One timeout per re-plan; a superseded one finds a newer generation and does nothing.
            generation = self._generation
            wake = self.env.timeout(next_dt if next_dt > 0.0 else 0.0)
            wake.callbacks.append(lambda _ev: self._wake(generation))
        now = self.env.now
        if (
            self.sample_hook is not None
            and not self._grid_sampling
            and now - self._last_sample >= self.sample_interval_s
        ):
            self._last_sample = now
            self.sample_hook(self)

    def _wake(self, generation: int) -> None:
        if generation != self._generation:
            return
        self._advance()
        tol = EPS * max(1.0, self.env.now)
        for r in self.active:  # whatever set this wake-up is done, up to float error
            if r.rate_p and r.prefill_left / r.rate_p <= tol:
                self.prompt_tokens_total += r.prefill_left
                r.prefilled += r.prefill_left
                r.prefill_left = 0.0
            elif r.rate_d and (r.out_target - r.generated) / r.rate_d <= tol:
                self.generated_tokens_total += r.out_target - r.generated
                r.generated = float(r.out_target)
        # iterations: the pool is checked in replan, after requests that finished in the
        # batch have freed their slots (llama.cpp places the next batch only then)
        if self.pool.kv_unified and self.active and self.schedule.checks_pool_on_wake:
            used = self.kv_in_use()
            full = self.pool_tokens - 1e-6 * self.pool_tokens
            if used >= full and (not self.pool.purge_on_full or not self._purge_idle_until_room(full)):
                self.fail_all_in_flight()
        self.replan()


__all__ = ["LocalRequest", "LocalServer"]
