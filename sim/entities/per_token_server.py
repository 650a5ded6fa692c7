"""The naive baseline the analytic server is measured against: the same server, token by token.

``bench/sim_speed.py`` needs an honest answer to "how much does the fluid model save?", so this
is what one would write without it: a SimPy process steps the batch (one timeout per decode
step, each step also carrying a prompt chunk while prompts are pending, as llama.cpp's
continuous batching does), and every token a step generates reaches its sequence's streaming
client as an event of its own: one event per generated token per sequence.

Everything else is ``LocalServer``'s: slots and the slot policy, the prefix cache, the KV pool
and its outcomes (context errors, ``length``), the counters and the sample hook, and the same
``ServerRates`` for a step's duration. Only the mechanics differ: state changes at step ends
instead of continuously, so suite times agree with the analytic server to within a step per
request, not bit for bit. Not used outside the benchmark.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import simpy

from agbench.sim.entities.batch_loop import base_step_s
from agbench.sim.entities.local_server import LocalServer


class PerTokenServer(LocalServer):
    """``LocalServer`` stepped one decode step at a time (benchmark baseline only)."""

    kv_peak: float
    _last_sample: float

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._stepping = False
        self.steps = 0
        self.tokens_streamed = 0

    def _advance(self) -> None:
        """Nothing moves between steps: tokens arrive at step ends."""

    def _plan_rates(self) -> None:
        used = self.kv_in_use()
        if used > self.kv_peak:
            self.kv_peak = used
        if self.active and not self._stepping and self.speed.running:
            self._stepping = True
            self.env.process(self._step_loop())
        now = self.env.now
        if self.sample_hook is not None and now - self._last_sample >= self.sample_interval_s:
            self._last_sample = now
            self.sample_hook(self)

    def _step_loop(self) -> Generator[simpy.Event, Any, None]:
        rates = self.rates
        while self.active and self.speed.running:
            prefilling = [r for r in self.active if r.t_first is None]
            decoding = [r for r in self.active if r.t_first is not None]
            batch = len(decoding)
            step = base_step_s(rates, self.pool, decoding, sum(r.held for r in decoding), bool(prefilling))
            base = step if batch else 0.0
            takes: list[float] = []
            if prefilling:  # the batch's room is shared by the pending prompts
                share = max(1, self.settings.n_batch - batch) / len(prefilling)
                takes = [min(r.prefill_left, share) for r in prefilling]
                ctx = sum(r.cached + r.prefilled for r in prefilling) / len(prefilling)
                step += sum(takes) / rates.prefill_rate(ctx)
            yield self.env.timeout(step / self.speed.of_batch(base, step - base, batch + sum(takes)))
            self.steps += 1
            for r, take in zip(prefilling, takes, strict=True):
                if r.t_done is not None:  # cancelled during the step
                    continue
                r.prefill_left -= take
                r.prefilled += take
                self.prompt_tokens_total += take
            for r in decoding:
                if r.t_done is not None:  # cancelled during the step
                    continue
                before = r.generated
                got = min(float(r.out_target) - before, rates.spec_tokens_per_step)
                r.generated += got
                self.generated_tokens_total += got
                for _ in range(int(r.generated) - int(before)):  # accepted draft tokens: several
                    self._stream_token()
            self.replan()  # finishes, the pool check, admissions, the sample hook
        self._stepping = False

    def _stream_token(self) -> None:
        """One generated token reaching its streaming client: an event of its own."""
        token = self.env.event()
        token.callbacks.append(self._received)
        token.succeed()

    def _received(self, _token: simpy.Event) -> None:
        self.tokens_streamed += 1


__all__ = ["PerTokenServer"]
