"""How a local server schedules prompt and decode work between events: one strategy object per
``prefill_scheduling`` (``ServerProfile``), chosen once when the server is built.

Why a module of its own: the rules of llama-server's loop are llama.cpp's
(tools/server/server-context.cpp, ``update_slots``), read from the source and checked against
server logs (docs/design.md), and they change apart from the slot, cache and pool bookkeeping
around them. Why a strategy and not a flag: the two schedules keep different state (the
``iterations`` one remembers the batch it is running), and a schedule sees the server only
through :class:`ScheduleHost`, the narrow interface below, so neither can reach into the
other's state or the server's private fields.

* :class:`FluidSchedule` (``"shared"``): every pending prompt shares each step's prompt room
  continuously with the decode tokens.
* :class:`IterationsSchedule` (``"iterations"``): llama-server's loop. Each iteration builds one
  batch: one token per decoding sequence, then waiting prompt tokens in slot order up to
  ``n_batch``; it runs to its end, and prompts that arrive meanwhile wait for the next, behind
  a decode-only step as behind a prompt batch (``server_queue::start_loop`` takes new tasks
  only between two ``update_slots`` calls). With a unified KV pool the batch's cells are placed
  when it starts, which decides when the pool fails.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import simpy

from agbench.errors import AgbenchError
from agbench.sim.entities.kv_cells import Q_TILE
from agbench.sim.entities.local_request import LocalRequest
from agbench.sim.entities.micro_batches import batch_rows, decode_step_s, split_batch_s
from agbench.sim.predictors.cpu_speed import ServerSpeed
from agbench.sim.profiles import ServerProfile, ServerRates

EPS = 1e-9
STEP_EDGE = 1e-6  # a decode step this close to its end or start is at a batch boundary


@dataclass(frozen=True)
class PoolFacts:
    """What a schedule needs to know about the server's pool, fixed when the server is built."""

    n_batch: int
    kv_unified: bool
    # > 0: llama.cpp on a per-slot pool, whose batches are cut by slot into micro-batches of
    # at most this many tokens (entities/micro_batches.py); 0: one pass per batch
    split_ubatch: int
    idle_holds_kv: bool  # idle slots' cached prefixes count against a unified pool
    purge_on_full: bool  # a full unified pool purges idle slots before failing
    spec_draft_max: int

    @classmethod
    def of(cls, settings: ServerProfile) -> PoolFacts:
        return cls(
            n_batch=settings.n_batch,
            kv_unified=bool(settings.kv_unified),
            split_ubatch=0
            if settings.kv_unified or settings.engine != "llama.cpp"
            else min(settings.n_ubatch, settings.n_batch),
            idle_holds_kv=bool(settings.idle_cache_holds_kv and settings.kv_unified),
            purge_on_full=bool(settings.purge_idle_on_full and settings.kv_unified),
            spec_draft_max=settings.spec_draft_max,
        )


class ScheduleHost(Protocol):
    """The server as a schedule sees it: its pool, its requests and the few actions a schedule
    may take (LocalServer implements it)."""

    env: simpy.Environment
    pool: PoolFacts
    rates: ServerRates
    active: list[LocalRequest]
    pool_tokens: int
    speed: ServerSpeed  # its speed now on the cores it gets (1 = alone), decode and prompt work apart
    idle_tokens: int  # cells idle slots hold
    prompt_tokens_total: float  # llama.cpp's prompt-token counter, advanced by a schedule

    def kv_in_use(self) -> float: ...
    def kv_range(self) -> float: ...
    def interleaved_context(self, r: LocalRequest) -> float: ...
    def purge_one_idle(self) -> bool: ...
    def fail_all_in_flight(self) -> None: ...
    def finish_due_decoders(self) -> int: ...
    def replan(self) -> None: ...
    def schedule_next(self, next_dt: float, used: float, growth: float) -> None: ...
    def saw(self, batch: int, kv_decoding: float, context: float, masked: float) -> None: ...


class PrefillSchedule(Protocol):
    """One way of turning the active requests into rates until the next event."""

    #: the server checks the pool at every wake-up (fluid), or the schedule does when it
    #: places a batch (iterations: after requests that finished in the batch freed their slots)
    checks_pool_on_wake: bool

    def plan(self, host: ScheduleHost) -> None:
        """Set every active request's rates and schedule the server's next wake-up."""

    def settle(self, host: ScheduleHost) -> None:
        """Bring the schedule's own state up to date at an event (a finished batch ends)."""

    def advance(self, dt: float) -> None:
        """``dt`` seconds passed since the last event, at the speed the last plan found."""

    def placed_prompt(self, r: LocalRequest, dt: float) -> float:
        """The prompt tokens of a still-prefilling request placed so far, ``dt`` after the
        last event (``/slots``' ``n_prompt_tokens``)."""

    def stall(self, work_s: float) -> None:
        """The server's loop spends ``work_s`` nominal seconds outside a batch (prompt-cache
        saves and restores, done between two batches while every slot waits)."""


def base_step_s(
    rates: ServerRates, pool: PoolFacts, decoding: list[LocalRequest], kv_decoding: float, prompt: bool
) -> float:
    """``ServerRates.batch_base_s`` on this pool: the decode step of ``decoding`` (holding
    ``kv_decoding`` cells), one step per run of consecutive slots where the pool is cut by
    slot (micro_batches.py), else a prompt batch's fixed part when ``prompt``, else 0."""
    if decoding and pool.split_ubatch:
        return decode_step_s(rates, decoding, pool.split_ubatch)
    return rates.batch_base_s(len(decoding), kv_decoding, prompt)


def schedule_for(settings: ServerProfile) -> PrefillSchedule:
    if settings.prefill_scheduling == "shared":
        return FluidSchedule()
    if settings.prefill_scheduling == "iterations":
        return IterationsSchedule()
    raise AgbenchError(
        f"unknown prefill_scheduling {settings.prefill_scheduling!r} (expected shared or iterations)"
    )


class FluidSchedule:
    """``prefill_scheduling = "shared"``: pending prompts share each step continuously."""

    checks_pool_on_wake = True

    def settle(self, host: ScheduleHost) -> None:
        """Nothing to settle: fluid rates carry no batch."""

    def advance(self, dt: float) -> None:
        """Nothing to advance: the requests' own counters are the state."""

    def placed_prompt(self, r: LocalRequest, dt: float) -> float:
        return min(float(r.prompt_tokens), r.cached + r.prefilled + r.rate_p * dt)

    def stall(self, work_s: float) -> None:
        """Not charged: continuous sharing has no batch boundary to put the loop's pause at
        (every calibrated profile and paper scenario runs "iterations")."""

    def plan(self, host: ScheduleHost) -> None:
        # Runs on every event: one pass to split the batch, plain loops, no temporaries.
        # The float operations and their order are the reference's (results are compared
        # bit for bit), so rewrite with care.
        rates = host.rates
        pool = host.pool
        prefilling: list[LocalRequest] = []
        decoding: list[LocalRequest] = []
        kv_decoding = 0.0
        ctx_prefilling = 0.0
        used = 0.0
        for r in host.active:
            held = r.held
            used += held
            if r.t_first is None:
                prefilling.append(r)
                ctx_prefilling += r.cached + r.prefilled
            else:
                decoding.append(r)
                kv_decoding += held
        batch = len(decoding)
        n_prefilling = len(prefilling)
        # unified pool: a prompt's attention also passes the other sequences' cells
        span = (used + host.idle_tokens if pool.idle_holds_kv else used) if pool.kv_unified else 0.0
        step = base_step_s(rates, pool, decoding, kv_decoding, n_prefilling > 0)
        if not n_prefilling:
            host.saw(batch, kv_decoding, 0.0, 0.0)
        prefill_each = 0.0
        next_dt = math.inf
        # the decode step slows as decode work does; a prompt batch with no decode (its fixed
        # part too) as the profile's prompt probes measured it
        base = step if batch else 0.0
        if n_prefilling:
            chunk = pool.n_batch - batch
            if chunk < 1:
                chunk = 1
            own = ctx_prefilling / n_prefilling
            step += chunk / rates.prefill_rate(own)
            if span:
                step += rates.masked_s(span - own, chunk)
            host.saw(batch, kv_decoding, own, span - own if span else 0.0)
        # the batch's width, as its step counts it: a full chunk of prompt tokens
        speed = host.speed.of_batch(base, step - base, batch + chunk if n_prefilling else float(batch))
        if n_prefilling:
            prefill_each = speed * chunk / step / n_prefilling
            limit = next_dt * prefill_each
            for r in prefilling:
                r.rate_p = prefill_each
                r.rate_d = 0.0
                if r.prefill_left < limit:
                    next_dt = r.prefill_left / prefill_each
                    limit = next_dt * prefill_each
        decode_each = 0.0
        if batch:
            decode_each = speed * rates.spec_tokens_per_step / step
            limit = next_dt * decode_each
            for r in decoding:
                r.rate_p = 0.0
                r.rate_d = decode_each
                left = r.out_target - r.generated
                if left < limit:
                    next_dt = left / decode_each
                    limit = next_dt * decode_each
        if pool.idle_holds_kv:
            used += host.idle_tokens
        host.schedule_next(next_dt, used, prefill_each * n_prefilling + decode_each * batch)


class IterationsSchedule:
    """``prefill_scheduling = "iterations"``: llama-server's loop, one batch at a time."""

    checks_pool_on_wake = False

    def __init__(self) -> None:
        # the batch being run: request -> its prompt tokens in it, and the nominal seconds of
        # work left in it (it advances at the batch's speed per second, ``speed_now``); of its
        # nominal seconds, ``batch_base_s`` are its decode step (0 with no sequence decoding)
        self.batch_tokens: dict[LocalRequest, float] = {}
        self.batch_left_s = 0.0
        self.batch_step_s = 0.0
        self.batch_base_s = 0.0
        self.batch_n_tokens = 0.0  # its tokens, decode and prompt (how wide its operations are)
        self.speed_now = 1.0
        # prompt tokens llama.cpp put in the running batch that found no cell (it adds them
        # up to n_batch without a room check, and the batch fails when they do not fit)
        self.unplaced = 0.0
        # the loop's work between batches (prompt-cache restores) not yet charged: the next
        # batch starts after it
        self.pending_stall_s = 0.0
        # between prompt batches the decoding sequences run decode-only steps back to back:
        # the nominal seconds of the one running (0 when nothing decodes) and the share of it
        # done. A prompt that arrives during one waits for its end, as llama-server's loop
        # reads new tasks only between two batches.
        self.decode_step_s = 0.0
        self.decode_step_done = 0.0

    def stall(self, work_s: float) -> None:
        self.pending_stall_s += work_s

    def advance(self, dt: float) -> None:
        if self.batch_tokens:
            self.batch_left_s -= self.speed_now * dt
        elif self.decode_step_s > 0:
            done = self.decode_step_done + self.speed_now * dt / self.decode_step_s
            self.decode_step_done = done - math.floor(done + STEP_EDGE)  # whole steps are over

    def waits_for_decode_step(self, host: ScheduleHost) -> bool:
        """A prompt is waiting while a decode-only step runs (not at its end nor its start):
        llama-server reads it only after the step."""
        return (
            self.decode_step_s > 0
            and STEP_EDGE < self.decode_step_done < 1.0 - STEP_EDGE
            and any(r.t_first is None and r.prefill_left > EPS for r in host.active)
        )

    def placed_prompt(self, r: LocalRequest, dt: float) -> float:
        # a batch's prompt tokens count from its start (measured: a 2,000-token prompt read
        # 256, 512, 768 ... in 256-token batches)
        take = self.batch_tokens.get(r)
        if take is not None:
            return r.prompt_tokens - r.batch_left_at_start + take
        return r.cached + r.prefilled

    def room_for_prompt(self, host: ScheduleHost, decoding: int, wanted: float) -> float:
        """Cells a batch's prompt tokens may take: what the decoding sequences' next tokens
        (drafts included) leave of the pool, after purging idle slots one by one while that is
        less than ``wanted``."""
        reserve = decoding * (1.0 + host.pool.spec_draft_max) if decoding else 0.0
        room = host.pool_tokens - host.kv_in_use() - reserve
        while room < wanted and host.pool.purge_on_full and host.purge_one_idle():
            room = host.pool_tokens - host.kv_in_use() - reserve
        return float(math.floor(room)) if room > 0 else 0.0

    def settle(self, host: ScheduleHost) -> None:
        """The running batch is over: its prompt tokens are processed exactly."""
        if not self.batch_tokens or self.batch_left_s > EPS * max(1.0, self.batch_step_s):
            return
        for r, tokens in self.batch_tokens.items():
            if r in host.active and r.t_first is None:
                target_left = r.batch_left_at_start - tokens
                moved = r.prefill_left - target_left
                r.prefill_left = target_left if target_left > EPS else 0.0
                r.prefilled += moved
                host.prompt_tokens_total += moved
        self.batch_tokens = {}
        self.batch_left_s = 0.0
        self.decode_step_done = 0.0  # decode steps after it start at its end

    def start_batch(self, host: ScheduleHost, decoding: list[LocalRequest], kv_decoding: float) -> None:
        """llama-server's next batch: decode tokens, then waiting prompts in slot order.

        ``update_slots`` adds prompt tokens up to ``n_batch`` without asking the pool for room;
        ``server_context::decode`` then runs the batch in views: a view that finds no cells
        (``llama_decode`` returns 1) purges an idle slot (``try_clear_idle_slots``) or halves the
        view and retries from the same offset, so the tokens that fit are processed, and a
        one-token view that still fails answers every processing slot "Context size has been
        exceeded.". Here the batch runs the prompt tokens that fit (after purging idle slots)
        and remembers the rest (``unplaced``): when the batch ends, requests that finished in it
        have freed their slots, and unless purging idle slots then makes room for the rest,
        every request in flight fails (``plan``)."""
        pool = host.pool
        budget = float(pool.n_batch - len(decoding))
        if budget < 1.0:
            budget = 1.0
        waiting = sorted(
            (r for r in host.active if r.t_first is None and r.prefill_left > EPS),
            key=lambda r: r.slot.index if r.slot is not None else 0,
        )
        span = 0.0  # unified pool: the cells a prompt's attention spans (after any purge, holes included)
        tiled = False
        if waiting and pool.kv_unified:
            wanted = min(budget, sum(r.prefill_left for r in waiting))
            room = self.room_for_prompt(host, len(decoding), wanted)
            if room < wanted:
                self.unplaced = wanted - room
            budget = min(budget, room)
            span = host.kv_range()
            # the tiled attention kernel (a batch of 64 tokens and more) reads whole 64-cell tiles:
            # cells of others interleaved with a prompt's own cost as its context does (kv_cells.py)
            tiled = span > 0.0 and len(decoding) + min(budget, wanted) >= Q_TILE
        tokens_in = 0.0
        ctx = 0.0
        for r in waiting:
            if budget <= 0:
                break
            take = min(r.prefill_left, budget)
            budget -= take
            r.batch_left_at_start = r.prefill_left
            if r.t_prompt is None:  # llama.cpp's t_start_process_prompt: its first batch, after
                r.t_prompt = host.env.now + self.pending_stall_s  # the loop's pause (stall) before it
            self.batch_tokens[r] = take
            tokens_in += take
            interleaved = host.interleaved_context(r) if tiled else 0.0
            ctx += (r.cached + r.prefilled + take / 2.0 + interleaved) * take
        if not self.batch_tokens:
            return
        rates = host.rates
        own = ctx / tokens_in
        masked = max(0.0, span + tokens_in / 2.0 - own) if span else 0.0
        if pool.split_ubatch:  # a per-slot pool: one pass per micro-batch (micro_batches.py)
            base, prompt_s = split_batch_s(rates, batch_rows(decoding, self.batch_tokens), pool.split_ubatch)
            step = base + prompt_s
        else:
            base = rates.batch_base_s(len(decoding), kv_decoding, prompt=True)
            step = rates.prompt_batch_s(base, tokens_in, own, masked)
        self.batch_base_s = base if decoding else 0.0  # see FluidSchedule.plan
        if self.pending_stall_s:
            step += self.pending_stall_s
            self.pending_stall_s = 0.0
        host.saw(len(decoding), kv_decoding, own, masked)
        self.batch_step_s = step
        self.batch_left_s = step
        self.batch_n_tokens = len(decoding) + tokens_in
        self.decode_step_done = 0.0

    def overflowed(self, host: ScheduleHost) -> tuple[bool, int]:
        """The batch just over left prompt tokens without a cell: llama.cpp's later views purge
        idle slots (those that finished in the batch included) until they fit, else it fails
        every processing slot. (whether it fails, requests answered on the way)."""
        unplaced, self.unplaced = self.unplaced, 0.0
        room = host.pool_tokens - host.kv_in_use()
        answered = 0
        if room < unplaced:
            # the batch's decode view ran first: requests whose last token was in it are
            # answered (their slots idle, purgeable) before the prompt view fails
            answered = host.finish_due_decoders()
            room = host.pool_tokens - host.kv_in_use()
        while room < unplaced and host.pool.purge_on_full and host.purge_one_idle():
            room = host.pool_tokens - host.kv_in_use()
        return room < unplaced, answered

    def resolve_overflow(self, host: ScheduleHost) -> bool:
        """After an overflowing batch: fail every request in flight, or go on; True when slots
        were freed (failed or answered requests), so the server admits and plans again."""
        fails, answered = self.overflowed(host)
        if fails:
            host.fail_all_in_flight()
        if fails or answered:
            host.replan()
            return True
        return False

    def decode_only_wake(self, step: float, speed: float, prompt_waits: bool) -> float:
        """Seconds until a decode-only stretch must stop for the loop, if it must."""
        if step <= 0 or speed <= 0:
            return math.inf
        if self.unplaced:
            # no prompt token found a cell: the batch is the decode tokens' view alone, and
            # its end (requests that finish in it freed their slots) decides (overflowed)
            return step / speed
        if prompt_waits:
            # the next batch, with the waiting prompt, starts when this decode step ends
            return (1.0 - self.decode_step_done) * step / speed
        return math.inf

    def plan(self, host: ScheduleHost) -> None:
        self.settle(host)
        if self.unplaced and not self.batch_tokens and self.resolve_overflow(host):
            return
        rates = host.rates
        pool = host.pool
        decoding: list[LocalRequest] = []
        kv_decoding = 0.0
        used = 0.0
        for r in host.active:
            held = r.held
            used += held
            r.rate_p = 0.0
            r.rate_d = 0.0
            if r.t_first is not None:
                decoding.append(r)
                kv_decoding += held
        batch = len(decoding)
        if pool.idle_holds_kv:
            used += host.idle_tokens
        waits_for_step = False
        if not self.batch_tokens:
            waits_for_step = batch > 0 and self.waits_for_decode_step(host)
            if not waits_for_step:
                self.start_batch(host, decoding, kv_decoding)
            if not self.batch_tokens and not batch and host.active and pool.kv_unified:
                # not one prompt token fits and nothing decodes that could free a cell:
                # llama.cpp's one-token view fails ("Context size has been exceeded")
                self.unplaced = 0.0
                host.fail_all_in_flight()
                host.replan()
                return
        next_dt = math.inf
        growth = 0.0
        self.decode_step_s = 0.0
        if self.batch_tokens:
            step = self.batch_step_s
            speed = self.speed_now = host.speed.of_batch(
                self.batch_base_s, step - self.batch_base_s, self.batch_n_tokens
            )
            if speed > 0:
                next_dt = max(0.0, self.batch_left_s) / speed
            for r, tokens in self.batch_tokens.items():
                if r in host.active and r.t_first is None:
                    r.rate_p = speed * tokens / step
        else:
            step = base_step_s(rates, pool, decoding, kv_decoding, prompt=False)
            speed = self.speed_now = host.speed.decode
            host.saw(batch, kv_decoding, 0.0, 0.0)
            self.decode_step_s = step
            next_dt = self.decode_only_wake(step, speed, waits_for_step)
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
        # (start_batch): the pool cannot fill before it ends
        host.schedule_next(next_dt, used, 0.0 if self.batch_tokens else growth)


__all__ = [
    "EPS",
    "FluidSchedule",
    "IterationsSchedule",
    "PoolFacts",
    "PrefillSchedule",
    "ScheduleHost",
    "base_step_s",
    "schedule_for",
]
