"""How fast a CPU-only server runs on the cores it is given: its decode steps and its prompt
batches apart.

Why apart: llama.cpp's threads meet at a barrier after every operation, and a decode step is
hundreds of short operations where a prompt batch is fewer, longer ones. A thread without a
core stalls its partners at each barrier, so a decode step loses far more than a prompt batch
when the threads are crowded. Measured here (two threads on two cores, docs/design.md
"Crowded threads"): beside one busy loop, decode ran at 0.31 of its speed alone and a prompt at
0.46; beside a twin server decoding, 0.09 and 0.11. One factor for both, as the simulator had,
is wrong for one of them whatever its value. A prompt batch's speed also depends on its size:
a short batch is as many barriers as a long one for less work (beside a twin, in one session:
0.22-0.26 for 51 tokens, 0.27-0.30 for 194, 0.36 for 511), so where the profile measured
several lengths the prompt speed is a table by batch tokens too. Not modelled: what the
crowding work is: beside a twin reading prompts rather than decoding, prompts ran at about the
same speeds (0.22-0.39), and a decode at 0.08 against 0.16, within the calls' spread.

Two ways a server loses cores (entities/cpu.py gives the shares):

* **crowded**: the other members of its own scheduling group (the harness's session: the cloud
  stand-in, the harness's CPU work) share the cores with it; its threads get ``share`` of a
  core each. Read from the profile's measured points (``crowded_share``; below the lowest, the
  power law through it and (1, 1)), else from ``oversubscribed_efficiency``'s one-parameter
  form.
* **displaced**: another group (a sandboxed tool's session) takes cores its threads would have
  had; measured at one operating point (``displaced_thread_share``), linear in the displaced
  share up to it and down to 0 with every thread displaced.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from agbench.sim.profiles import ServerProfile


@dataclass(frozen=True)
class ServerSpeed:
    """The server's speed now (1 = alone on the cores it asks for), per kind of work; the
    prompt speed per batch size where the profile measured it (``prefill_tokens`` columns,
    ``prefill_by_tokens`` their speeds), else ``prefill`` at every size."""

    decode: float = 1.0
    prefill: float = 1.0
    prefill_tokens: tuple[float, ...] = ()
    prefill_by_tokens: tuple[float, ...] = ()

    def prefill_at(self, tokens: float) -> float:
        """The prompt speed of a batch of ``tokens``: linear in log tokens between the
        measured sizes, held at the end ones beyond them."""
        xs, ys = self.prefill_tokens, self.prefill_by_tokens
        if not xs:
            return self.prefill
        if tokens <= xs[0]:
            return ys[0]
        if tokens >= xs[-1]:
            return ys[-1]
        i = next(k for k in range(1, len(xs)) if tokens <= xs[k])
        f = math.log(tokens / xs[i - 1]) / math.log(xs[i] / xs[i - 1])
        return ys[i - 1] + (ys[i] - ys[i - 1]) * f

    def of_batch(self, decode_s: float, prompt_s: float, tokens: float = 0.0) -> float:
        """The speed of one batch of ``tokens`` whose work alone takes ``decode_s`` (its
        decode step; 0 in a prompt batch with no sequence decoding, which slows whole as the
        profile's prompt probes measured it) plus ``prompt_s`` (the rest): each part slows by
        its own factor, so the batch's speed is the harmonic mean weighted by their times."""
        prefill = self.prefill_at(tokens) if self.prefill_tokens and prompt_s > 0.0 else self.prefill
        if self.decode == prefill:
            return prefill
        if self.decode <= 0.0 or prefill <= 0.0:
            return 0.0
        total = decode_s + prompt_s
        if total <= 0.0:
            return self.decode
        return total / (decode_s / self.decode + prompt_s / prefill)

    @property
    def running(self) -> bool:
        return self.decode > 0.0 and self.prefill > 0.0


def crowded_speed(shares: list[float], speeds: list[float], share: float) -> float:
    """A measured (share, speed) table read at ``share``: linear between the points and up to
    (1, 1); below the lowest point, on the power law through (1, 1) and that point.

    Why a power law below: the fewer cores the threads share, the more barriers each operation
    waits at, so the speed falls faster than the share. On the development set's two-thread
    profile (dev-t2) the power law through its busy-loop point (share 2/3: decode 0.248,
    prompt 0.508) gives 0.092 and 0.314 at a twin server's share (1/2), where the twin probe
    measured 0.083 and 0.311; speed in proportion to the share, the rule before, gave 0.186 and
    0.381. A profile without the twin probe (``--quick`` before it had one, or one twin's
    threads fitting the cores) is read there this way."""
    if share >= 1.0:
        return 1.0
    xs, ys = [*shares, 1.0], [*speeds, 1.0]
    if share <= xs[0]:
        if share <= 0.0:
            return 0.0
        if 0.0 < xs[0] < 1.0 and 0.0 < ys[0] < 1.0:
            return float(share ** (math.log(ys[0]) / math.log(xs[0])))
        return ys[0] * share / xs[0]
    i = next(k for k in range(1, len(xs)) if share <= xs[k])
    return ys[i - 1] + (ys[i] - ys[i - 1]) * (share - xs[i - 1]) / (xs[i] - xs[i - 1])


def _displaced_factor(s: ServerProfile, measured: float | None, displaced_share: float) -> float:
    x, x1 = displaced_share, s.displaced_thread_share
    s1 = measured if measured is not None else s.displaced_speed
    assert s1 is not None
    if x <= x1:
        return 1.0 - x / x1 * (1.0 - s1)
    return s1 * (1.0 - x) / (1.0 - x1) if x1 < 1.0 else s1


def server_speed(s: ServerProfile, allocated: float, displaced: float) -> ServerSpeed:
    """The server's speed on ``allocated`` cores, ``displaced`` more taken by other groups."""
    threads = float(s.threads)
    if threads <= 0:
        return ServerSpeed()
    share = min(1.0, (allocated + displaced) / threads)
    measured = s.crowded_share and len(s.crowded_share) == len(s.crowded_decode_speed) == len(
        s.crowded_prefill_speed
    )
    by_tokens: list[float] = []
    if measured:
        decode = crowded_speed(s.crowded_share, s.crowded_decode_speed, share)
        prefill = crowded_speed(s.crowded_share, s.crowded_prefill_speed, share)
        rows = s.crowded_prefill_speed_by_tokens
        if s.crowded_prefill_tokens and len(rows) == len(s.crowded_share):
            by_tokens = [
                crowded_speed(s.crowded_share, [row[j] for row in rows], share)
                for j in range(len(s.crowded_prefill_tokens))
            ]
    else:  # one factor for both: share (1 - (1 - e)(1 - share))
        decode = prefill = share * (1.0 - (1.0 - s.oversubscribed_efficiency) * (1.0 - share))
    if displaced <= 0.0:
        decode_factor = prefill_factor = 1.0
    elif s.displaced_speed is None:  # not measured: in proportion to the cores kept
        decode_factor = prefill_factor = allocated / (allocated + displaced)
    else:
        x = min(1.0, displaced / threads)
        decode_factor = _displaced_factor(s, s.displaced_decode_speed, x)
        prefill_factor = _displaced_factor(s, s.displaced_prefill_speed, x)
    if not by_tokens:
        return ServerSpeed(decode * decode_factor, prefill * prefill_factor)
    return ServerSpeed(
        decode * decode_factor,
        prefill * prefill_factor,
        tuple(s.crowded_prefill_tokens),
        tuple(v * prefill_factor for v in by_tokens),
    )


__all__ = ["ServerSpeed", "crowded_speed", "server_speed"]
