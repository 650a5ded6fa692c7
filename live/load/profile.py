"""``agbench profile-server``: the model server measured alone, operator by operator.

Vidur profiles each operator before it simulates; this does the same for a llama-server as
launched: requests of exact sizes (the load generator's prompt builder, ``build_prompt``) sent in
controlled groups, each measured with llama.cpp's own ``timings`` (``prompt_ms``,
``predicted_ms``), which exclude queueing and HTTP time. Five probes:

* **decode**: ``b`` sequences (1 .. ``--parallel``) decoding together at two context lengths.
  Their prompts are cached first (one 1-token request each), so the burst's prompt work is one
  token per sequence and every sequence decodes the whole time with all the others;
* **prefill**: fresh prompts of several lengths alone, and follow-up turns whose prefix is
  cached (the context a prompt's attention spans);
* **masked** (unified pools): a prompt processed while background sequences, parked at set
  sizes, decode beside it: their cells sit in the pool and every prompt batch spans them;
* **restore**: follow-up turns whose conversation was moved to the host-memory prompt cache and
  comes back (time between the request and the start of its prompt work, against fresh ones);
* **save**: what a request's launch pays to copy an idle slot's state to the prompt cache
  (``--cache-idle-slots`` saves every idle slot not already cached at each launch): a probe
  whose launch finds a held conversation idle and unsaved, against one whose launch finds it
  saved already by a short request in between;
* **cpu**: decode and prefill again while a busy loop holds one core, in the server's session
  (its threads share the cores with it), and, where the server's threads need every core, once
  more with the busy loop in a session of its own, as a sandboxed tool runs (Linux gives each
  session an equal share: the server's threads lose a whole core, docs/design.md "CPU groups");
  and, where two such servers' threads need more than every core, beside a **twin**: a second
  llama-server of the same settings, decoding all the while, as the cloud stand-in runs beside
  the local server in a hybrid sweep (decode and prefill slow down by very different factors
  there: a decode step's many short operations wait at the threads' barriers). Each call
  beside the twin records the share of its time each server's two compute threads ran stacked
  on one core (``stacked``, ``twin_stacked``: the kernel's placement, which moves the figure
  several-fold; ``live/monitors/thread_placement.py``).

Each measured call is appended to ``DIR/profile_calls.jsonl`` as it comes back (probe, its
parameters, the call's figures), and each finished probe is recorded, so a killed profile
keeps them and ``--resume`` runs the rest (live/load/profile_progress.py);
``calibration/server_profile.py`` fits ``DIR/server_profile.toml`` from the calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agbench.config import ServerSettings
from agbench.errors import AgbenchError
from agbench.live.load.level import build_prompt
from agbench.live.load.probe_client import BODY
from agbench.live.load.profile_progress import ProfileProgress
from agbench.live.load.twin_server import TwinPlacement, twin_decoding
from agbench.live.providers.chat_result import ChatResult
from agbench.live.providers.openai_compatible import ChatClient
from agbench.live.trajectories.sizing import TokenCounter
from agbench.load import RequestSpec
from agbench.usable_cores import available_cores

#: Output tokens of one decode measurement (enough steps that the first one does not dominate).
DECODE_TOKENS = 48
#: The share of the pool the full grid's last decode point per batch size fills, the longest
#: cached prefix it reads a follow-up on, and how much longer than the grid's longest such a
#: point must be to be measured (a point beside an existing one adds time, not range).
FULL_POOL_SHARE = 0.85
LONG_PREFIX = 2048
FULL_POOL_MIN_RATIO = 1.5
#: Output tokens and context (= prompt length) of the displaced-core probe: a server that loses
#: a core to another session runs at about 1 % of its speed, so its measurements are short; the
#: context is one the quiet decode and prefill probes measure too (their speed is the baseline).
DISPLACED_DECODE_TOKENS, DISPLACED_CONTEXT = 8, 64
BUSY_LOOP = [sys.executable, "-c", "while True: pass"]
#: Prompt calls at each length beside the twin, whatever ``--repeats``: one call's time per
#: token swings several-fold beside it (its fit takes their mean).
TWIN_REPEATS = 4
#: Decode calls beside the twin, over its ``TWIN_BLOCKS`` blocks: at least ``TWIN_REPEATS`` (or
#: ``--repeats``), then more until they have decoded for ``TWIN_DECODE_S`` seconds, at most
#: ``TWIN_DECODE_CALLS``. Two servers' threads on too few cores run and stall together in
#: spells of one to many seconds (``bench/twin_progress.py``), so the estimate's spread is set
#: by the time it covers, not the calls: cut from six 480-token pairs at nice 0, 48-token calls ran at 0.047 / 0.101 / 0.179 of
#: their speed alone (p5 / p50 / p95), and a four-call mean fell within 0.72-1.47 of the whole,
#: a twelve-call one within 0.83-1.24. Where a call takes 10-25 s (0.02-0.05, as some
#: profiles measured), four already cover the time; where 4-5 s, twelve do.
TWIN_DECODE_S = 60.0
TWIN_DECODE_CALLS = 12
#: The decode calls beside the twin come in this many blocks, at the profile's start and end.
TWIN_BLOCKS = 2
#: Masked-probe calls per grid point on the full grid, whatever a smaller ``--repeats``: the
#: term's fit had 12 calls, and its error was 57-77 % of the mean excess it fitted.
MASKED_REPEATS = 3
#: Save-probe calls per (held size, condition) on the full grid, whatever a smaller
#: ``--repeats``: the figure is the difference of two waits of 3-20 ms, and one wait in two
#: can be several times the other (test-unified4096-p4-t1's profile: a 1,024-token save
#: waited 16.4 ms in one repetition and 74.2 in the other, so the mean of two, which is their
#: median, put the save at 40.9 ms per 1,000 tokens against the 12.7-13.2 that
#: bench/idle_slot_save.py measures); the fit takes each point's median (fit_save).
SAVE_REPEATS = 5
#: The save probe's held conversations (capped by the slot), the request that saves one before
#: the probe in the "saved" condition, and the probe (calibration/server_profile.py fit_save).
SAVE_HELD, SAVE_HELD_QUICK, SAVE_SHORT, SAVE_PROBE = (256, 1024), (256, 768), 32, 64


@dataclass
class ProfileOptions:
    """What ``agbench profile-server`` was asked to measure."""

    out: Path
    server: ServerSettings = field(default_factory=ServerSettings)
    local_url: str | None = None  # None: start a managed llama-server with ``server``
    model: str = "smollm2-135m"
    quick: bool = False  # the smallest grid: batch sizes 1, 2, 4 and --parallel, one background size
    repeats: int = 2
    quiet: bool = False
    resume: bool = False  # finish the unfinished profile in ``out``

    def settings(self) -> dict[str, Any]:
        """What a resumed profile must measure as its first half did."""
        return {
            "server": self.server.to_dict(),
            "local_url": self.local_url,
            "model": self.model,
            "quick": self.quick,
            "repeats": self.repeats,
        }


@dataclass
class Measured:
    """One measured call: which probe, its parameters, and llama.cpp's figures."""

    probe: str
    params: dict[str, Any]
    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int
    prompt_ms: float | None
    predicted_ms: float | None
    ttft_s: float | None
    total_s: float
    t_start: float
    error_class: str


def _measured(probe: str, params: dict[str, Any], r: ChatResult) -> Measured:
    return Measured(
        probe,
        params,
        r.prompt_tokens,
        r.cached_tokens,
        r.completion_tokens,
        r.prompt_ms,
        r.predicted_ms,
        r.ttft_s,
        r.total_s,
        r.t_start,
        r.error_class,
    )


class Profiler:
    """Runs the probes against one server; every call is kept in ``self.calls`` and handed to
    ``progress`` (on disk) as it comes back."""

    def __init__(
        self,
        options: ProfileOptions,
        client: ChatClient,
        counter: TokenCounter,
        placement: TwinPlacement | None = None,
        progress: ProfileProgress | None = None,
    ) -> None:
        self.o = options
        self.client = client
        self.counter = counter
        self.placement = placement
        self.progress = progress
        self.calls = [Measured(**c) for c in progress.earlier_calls()] if progress else []
        self._n = progress.prompts if progress else 0
        s = options.server
        self.pool = s.n_ctx
        self.slot_ctx = s.slot_ctx
        self.parallel = max(1, s.n_parallel)

    def _say(self, text: str) -> None:
        if not self.o.quiet:
            print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)

    async def _prompt(self, tokens: int) -> list[dict[str, Any]]:
        """A fresh prompt of exactly ``tokens`` templated tokens that no earlier one shares."""
        self._n += 1
        return await build_prompt(self.counter, RequestSpec(0.0, tokens, 1), self._n, "profile")

    async def _send(
        self, messages: list[dict[str, Any]], max_tokens: int, slot: int | None = None
    ) -> ChatResult:
        body = BODY if slot is None else {**BODY, "id_slot": slot}
        result = await self.client.chat(messages, max_tokens=max_tokens, extra_body=body)
        if result.error_class:
            raise AgbenchError(f"profile request failed: {result.error_class} {result.error}")
        return result

    def _keep(self, probe: str, params: dict[str, Any], result: ChatResult) -> None:
        call = _measured(probe, params, result)
        self.calls.append(call)
        if self.progress is not None:
            self.progress.write_call(asdict(call))

    def _keep_beside_twin(self, probe: str, params: dict[str, Any], result: ChatResult) -> None:
        """A call beside the twin, with the share of its time each server's compute threads
        were stacked on one core (``stacked``, ``twin_stacked``; where sampled)."""
        if self.placement is not None:
            sampler, profiled, twin = self.placement
            t0, t1 = result.t_start, result.t_start + result.total_s
            for key, pid in (("stacked", profiled), ("twin_stacked", twin)):
                share = sampler.stacked_share(pid, t0, t1)
                if share is not None:
                    params[key] = round(share, 3)
        self._keep(probe, params, result)

    def batch_sizes(self) -> list[int]:
        if self.o.quick:  # batch 2 starts the CPU's batched kernels; 4 shows how the step bends
            return sorted({b for b in (1, 2, 4) if b <= self.parallel} | {self.parallel})
        return sorted({b for b in (1, 2, 3, 4, 6, 8, 12, 16) if b <= self.parallel} | {self.parallel})

    def _fits(self, b: int, prompt: int, out: int) -> bool:
        need = prompt + out + 8
        return need <= self.slot_ctx and (b * need <= self.pool if self.o.server.kv_unified else True)

    # ---- probes ------------------------------------------------------------------------
    async def decode(
        self,
        probe: str = "decode",
        batches: list[int] | None = None,
        contexts: list[int] | None = None,
        tokens: int = DECODE_TOKENS,
    ) -> None:
        """``b`` sequences decoding together, prompts cached first, at two context lengths;
        on the full grid, each batch size also where its sequences fill the pool
        (``full_pool_context``)."""
        full_pool = probe == "decode" and contexts is None and not self.o.quick
        contexts = contexts or ([64, 512] if not self.o.quick else [64, 256])
        sizes = batches or self.batch_sizes()
        points = [(ctx, b) for ctx in contexts for b in sizes]
        if full_pool:
            longest = FULL_POOL_MIN_RATIO * max(contexts)
            points += [(ctx, b) for b in sizes if (ctx := self.full_pool_context(b, tokens)) >= longest]
        for ctx, b in points:
            if not self._fits(b, ctx, tokens):
                continue
            for rep in range(self.o.repeats):
                prompts = [await self._prompt(ctx) for _ in range(b)]
                # each prompt cached on a slot of its own; on a per-slot pool slots 0 .. b - 1,
                # so the step is one pass (llama.cpp cuts a batch where the slots skip one:
                # sim/entities/micro_batches.py, which prices the cut from this step)
                slots = [None if self.o.server.kv_unified else i for i in range(b)]
                for p, slot in zip(prompts, slots, strict=True):
                    await self._send(p, 1, slot)
                results = await asyncio.gather(
                    *(self._send(p, tokens, slot) for p, slot in zip(prompts, slots, strict=True))
                )
                for r in results:
                    self._keep(probe, {"batch": b, "ctx": ctx, "rep": rep}, r)
            self._say(f"{probe}: batch {b}, context {ctx}")

    def full_pool_context(self, b: int, tokens: int = DECODE_TOKENS) -> int:
        """The context at which ``b`` decoding sequences hold ``FULL_POOL_SHARE`` of the pool
        (of a slot's cells, per-slot pools): where a sweep's agents decode once the pool has
        filled. The step's KV slope bends past the last-level cache (bench/decode_context.py),
        so a slope measured at short contexts alone is read far outside its range there."""
        room = FULL_POOL_SHARE * (self.pool / b if self.o.server.kv_unified else self.slot_ctx)
        return int(min(room, self.slot_ctx)) - tokens - 8

    def prompt_lengths(self) -> list[int]:
        lengths = [64, 256, 1024] if not self.o.quick else [64, 512]
        return [n for n in lengths if n + 8 <= self.slot_ctx]

    async def prefill(self, probe: str = "prefill") -> None:
        """Fresh prompts alone, and follow-ups on a cached prefix (context the prompt spans)."""
        for n in self.prompt_lengths():
            for rep in range(self.o.repeats):
                self._keep(probe, {"tokens": n, "rep": rep}, await self._send(await self._prompt(n), 1))
        if probe != "prefill":
            return
        for base in self.cached_prefixes():
            for rep in range(self.o.repeats):
                first = await self._prompt(base)
                await self._send(first, 1)
                follow = [*first, {"role": "assistant", "content": "ok"}]
                await fit_follow_up(self.counter, follow, base + 128, f"follow|{self._n}")
                self._keep("prefill_cached", {"cached": base, "rep": rep}, await self._send(follow, 1))
        self._say(
            f"{probe}: prompts of {self.prompt_lengths()} tokens, on {self.cached_prefixes()}-token prefixes"
        )

    def cached_prefixes(self) -> list[int]:
        """The cached prefixes a follow-up is read on: 1,024 tokens (256 quick) and, on the full
        grid, 2,048 too where a slot holds it twice over: an agent's late turns are read on
        conversations of 1-2,000 tokens, and the context slowdown is fitted on these."""
        base = min(1024 if not self.o.quick else 256, self.slot_ctx // 2)
        long = min(LONG_PREFIX, self.slot_ctx // 2)
        return [base] if self.o.quick or long < FULL_POOL_MIN_RATIO * base else [base, long]

    def masked_grid(self) -> list[tuple[int, int, int]]:
        """(background sequences, cells each, probe prompt tokens) within the pool. The full
        grid reaches three quarters of it (a sweep at eight agents fills it; the term is
        straight that far, bench/masked_range.py)."""
        grid: list[tuple[int, int, int]] = []
        shares = ((1, 0.25), (1, 0.5), (1, 0.75), (2, 0.3)) if not self.o.quick else ((1, 0.4),)
        for k, share in shares:
            held = int(self.pool * share)
            for tokens in (64, 384):
                if k > self.parallel - 1:
                    continue
                if k * (held + 256) + tokens + 64 <= self.pool and held + 256 <= self.slot_ctx:
                    grid.append((k, held, tokens))
        return grid

    def masked_repeats(self) -> int:
        """Calls per masked grid point: one call's prompt time spreads -9 to +40 % around its
        point's median (bench/masked_range.py) for a term a tenth to a fifth of it, so the
        full grid takes at least three."""
        return self._full_grid_repeats(MASKED_REPEATS)

    def save_repeats(self) -> int:
        """Calls per save-probe point: at least :data:`SAVE_REPEATS` on the full grid, so
        one slow wait does not set the point (its median does)."""
        return self._full_grid_repeats(SAVE_REPEATS)

    def _full_grid_repeats(self, least: int) -> int:
        """``--repeats``, raised to ``least`` on the full grid (the quick grid keeps it)."""
        return self.o.repeats if self.o.quick else max(least, self.o.repeats)

    async def masked(self) -> None:
        """A prompt processed while ``k`` background sequences holding cells decode beside it.
        Each repetition reads its backgrounds once and measures every probe length beside them
        (their prompts cached, the backgrounds decode at once): reading a background of three
        quarters of the pool takes longer than the probes."""
        if not self.o.server.kv_unified or self.parallel < 2:
            return
        points: dict[tuple[int, int], list[int]] = {}
        for k, held, tokens in self.masked_grid():
            points.setdefault((k, held), []).append(tokens)
        for (k, held), lengths in points.items():
            for rep in range(self.masked_repeats()):
                bg_prompts = [await self._prompt(held) for _ in range(k)]
                for p in bg_prompts:
                    await self._send(p, 1)  # cached: the backgrounds decode at once
                for tokens in lengths:
                    probe_prompt = await self._prompt(tokens)
                    bg = [asyncio.create_task(self._send(p, 200)) for p in bg_prompts]
                    await asyncio.sleep(0.5)  # the backgrounds are decoding
                    t_sent = time.time()
                    result = await self._send(probe_prompt, 1)
                    params = {"background": k, "held": held, "tokens": tokens, "rep": rep}
                    self._keep("masked", params, result)
                    for r in await asyncio.gather(*bg):
                        self._keep(
                            "masked_background", {"background": k, "held": held, "probe_sent": t_sent}, r
                        )
            self._say(f"masked: {k} background sequence(s) of {held} cells, {lengths}-token prompts")

    async def restore(self) -> None:
        """Follow-ups whose conversation went to the host-memory prompt cache and came back:
        ``parallel + 1`` conversations one after the other push the first out of its slot."""
        size = min(512, self.slot_ctx // 3)
        for rep in range(self.o.repeats):
            convs = [await self._prompt(size) for _ in range(self.parallel + 1)]
            for c in convs:
                self._keep("restore_fresh", {"tokens": size, "rep": rep}, await self._send(c, 1))
            follow = [*convs[0], {"role": "assistant", "content": "ok"}]
            await fit_follow_up(self.counter, follow, size + 32, f"restore|{self._n}")
            self._keep("restore", {"tokens": size, "rep": rep}, await self._send(follow, 1))
        self._say(f"restore: {size}-token conversations through the prompt cache")

    async def save(self) -> None:
        """The wait before a probe's prompt work when its launch copies a held conversation of
        ``held`` tokens to the prompt cache (``saved`` False), against when a short request in
        between copied it already (True: the probe's launch copies the short one's instead).
        Each conversation is new, so no cached state holds it."""
        sizes = sorted(
            {min(n, self.slot_ctx - 2 * SAVE_PROBE) for n in (SAVE_HELD_QUICK if self.o.quick else SAVE_HELD)}
        )
        for rep in range(self.save_repeats()):
            for held in sizes:
                for saved in (False, True):
                    await self._send(await self._prompt(held), 1)  # read into a slot, then idle
                    if saved:
                        await self._send(await self._prompt(SAVE_SHORT), 1)
                    probe = await self._send(await self._prompt(SAVE_PROBE), 1)
                    self._keep("save", {"held": held, "saved": saved, "short": SAVE_SHORT, "rep": rep}, probe)
        self._say(f"save: {sizes}-token idle slots copied to the prompt cache at a launch")

    async def cpu_busy(self) -> None:
        """Decode at batch 1 and prefill alone while a busy loop holds one core."""
        loop = subprocess.Popen(BUSY_LOOP)
        try:
            await asyncio.sleep(0.5)
            await self.decode("decode_cpu_busy", batches=[1])
            await self.prefill("prefill_cpu_busy")
        finally:
            loop.kill()
            loop.wait()
        self._say("cpu: one core busy")

    async def cpu_displaced(self) -> None:
        """Decode at batch 1 (and, unless ``--quick``, a fresh prompt) while a busy loop in a
        session of its own (a sandboxed tool's) takes a core from the server's threads; skipped
        where the threads keep their cores beside it (fewer threads than cores). The prompts
        are cached before the loop starts: the server runs at about 1 % of its speed then."""
        if self.o.server.threads <= available_cores() - 1:
            return
        prompts = [await self._prompt(DISPLACED_CONTEXT) for _ in range(self.o.repeats)]
        for p in prompts:
            await self._send(p, 1)
        fresh = await self._prompt(DISPLACED_CONTEXT)
        loop = subprocess.Popen(BUSY_LOOP, start_new_session=True)
        try:
            await asyncio.sleep(0.5)
            for rep, p in enumerate(prompts):
                params = {"batch": 1, "ctx": DISPLACED_CONTEXT, "rep": rep}
                self._keep("decode_cpu_displaced", params, await self._send(p, DISPLACED_DECODE_TOKENS))
            if not self.o.quick:
                params = {"tokens": DISPLACED_CONTEXT, "rep": 0}
                self._keep("prefill_cpu_displaced", params, await self._send(fresh, 1))
        finally:
            loop.kill()
            loop.wait()
        self._say("cpu: one core taken by another session")

    @contextlib.asynccontextmanager
    async def _twin_decoding(self, twin: ChatClient) -> AsyncIterator[None]:
        """While inside, ``twin`` decodes replies back to back, at the decode probe's context."""
        async with twin_decoding(twin, await self._prompt(DISPLACED_CONTEXT)):
            yield

    async def twin_decode(self, twin: ChatClient, block: int) -> None:
        """One of the ``TWIN_BLOCKS`` blocks of decode calls beside ``twin``: at least its share
        of the repeats, then more until the block covers its share of ``TWIN_DECODE_S``, at
        most its share of ``TWIN_DECODE_CALLS``. The blocks run at the profile's start and end,
        so that its calls sample two periods: the figure moves between half hours of one day
        (docs/design.md, "Two two-thread servers on two cores"), and the fit's bootstrap
        resamples the calls of both."""
        repeats = -(-max(TWIN_REPEATS, self.o.repeats) // TWIN_BLOCKS)
        prompts = [await self._prompt(DISPLACED_CONTEXT) for _ in range(repeats)]
        for p in prompts:
            await self._send(p, 1)  # cached: each call decodes at once
        first = sum(1 for c in self.calls if c.probe == "decode_cpu_twin")
        async with self._twin_decoding(twin):
            decoded_s, k = 0.0, 0
            while k < repeats or (
                decoded_s < TWIN_DECODE_S / TWIN_BLOCKS and k < TWIN_DECODE_CALLS // TWIN_BLOCKS
            ):
                params = {"batch": 1, "ctx": DISPLACED_CONTEXT, "rep": first + k, "block": block}
                result = await self._send(prompts[k % len(prompts)], DECODE_TOKENS)
                decoded_s += result.total_s
                self._keep_beside_twin("decode_cpu_twin", params, result)
                k += 1
        self._say(f"cpu: decode beside a twin server decoding, block {block + 1} of {TWIN_BLOCKS}")

    async def cpu_twin(self, twin: ChatClient) -> None:
        """Decode at batch 1 and a fresh prompt while ``twin`` (a second server of the same
        settings, in the same session) decodes without a pause, what a hybrid sweep's two
        servers mostly do at once. First the last block of decode calls (:meth:`twin_decode`;
        each runs as long as the quiet probe's, shorter ones measured 1.5-2x faster; the two
        servers stall and run together in spells of seconds, so one call's speed says little),
        then fresh prompts at each of the prefill probe's lengths: a short prompt batch slows
        far more than a long one (measured beside a twin: 0.22-0.26 at 51 tokens, 0.36 at 511)."""
        await self.twin_decode(twin, TWIN_BLOCKS - 1)
        repeats = max(TWIN_REPEATS, self.o.repeats)
        fresh = {n: [await self._prompt(n) for _ in range(repeats)] for n in self.prompt_lengths()}
        async with self._twin_decoding(twin):
            for n, group in fresh.items():
                for rep, p in enumerate(group):
                    result = await self._send(p, 1)
                    self._keep_beside_twin("prefill_cpu_twin", {"tokens": n, "rep": rep}, result)
        self._say("cpu: prompts beside a twin server decoding")

    def stages(self, twin: ChatClient | None = None) -> list[tuple[str, Callable[[], Awaitable[None]]]]:
        """The probes in the order they run, each a stage a resumed profile skips once done."""
        stages: list[tuple[str, Callable[[], Awaitable[None]]]] = []
        if twin is not None:  # the twin's first decode block; cpu_twin runs the last at the end
            stages.append(("twin_decode", lambda: self.twin_decode(twin, 0)))
        stages += [
            ("decode", self.decode),
            ("prefill", self.prefill),
            ("masked", self.masked),
            ("restore", self.restore),
            ("save", self.save),
            ("cpu_busy", self.cpu_busy),
            ("cpu_displaced", self.cpu_displaced),
        ]
        if twin is not None:
            stages.append(("cpu_twin", lambda: self.cpu_twin(twin)))
        return stages

    async def run_all(self, twin: ChatClient | None = None) -> None:
        """Every stage not yet done, each recorded as done when it finishes."""
        done = set(self.progress.done) if self.progress else set()
        for name, stage in self.stages(twin):
            if name in done:
                continue
            await stage()
            if self.progress is not None:
                self.progress.stage_done(name, self._n, len(self.calls))


async def fit_follow_up(counter: TokenCounter, messages: list[dict[str, Any]], tokens: int, key: str) -> None:
    """Append a user turn so the whole prompt is ``tokens`` long (prefix unchanged)."""
    from agbench.live.trajectories.sizing import fit_last_message

    messages.append({"role": "user", "content": ""})
    await fit_last_message(counter, messages, tokens, "Continue.\n", key)


__all__ = ["Measured", "ProfileOptions", "Profiler", "fit_follow_up"]
