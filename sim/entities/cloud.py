"""The cloud model API: latency from distributions, a provider prompt cache, and prices.

A cloud provider is not contended by our handful of agents, so a call is a delay drawn from
the profile: TTFT (lognormal, plus the uncached prompt at the provider's prefill rate) and
output at a lognormal per-call rate. Providers cache prompt prefixes in blocks; a
conversation's previous prompt is still cached with probability ``cache_hit_p``, and the
shared system prompt stays cached across tasks (DeepSeek/OpenAI behave so under load).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from agbench.sim.profiles import CloudProfile


@dataclass
class CloudReply:
    ttft_s: float
    total_s: float
    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int
    cost_usd: float


class CloudAPI:
    def __init__(self, profile: CloudProfile) -> None:
        self.profile = profile
        self.calls = 0

    def cached_tokens(
        self, rng: random.Random, prompt_tokens: int, previous_prompt: int, sys_tokens: int
    ) -> int:
        p = self.profile
        cached = 0
        if previous_prompt > 0 and rng.random() < p.cache_hit_p:
            cached = previous_prompt
        elif p.system_prompt_cached:
            cached = sys_tokens
        cached = min(cached, prompt_tokens)
        block = max(1, p.cache_block_tokens)
        return int((cached // block) * block)

    def call(
        self,
        rng: random.Random,
        prompt_tokens: int,
        output_tokens: int,
        previous_prompt: int,
        sys_tokens: int,
    ) -> CloudReply:
        """One call's timing, cache and cost (``previous_prompt``: this conversation's last prompt)."""
        p = self.profile
        self.calls += 1
        cached = self.cached_tokens(rng, prompt_tokens, previous_prompt, sys_tokens)
        ttft = p.ttft_median_s * math.exp(p.ttft_sigma * rng.gauss(0.0, 1.0))
        ttft += (prompt_tokens - cached) / p.prefill_tok_s
        rate = p.output_tok_s_median * math.exp(p.output_tok_s_sigma * rng.gauss(0.0, 1.0))
        total = ttft + output_tokens / rate
        cost = p.prices.cost(prompt_tokens, cached, output_tokens)
        return CloudReply(ttft, total, prompt_tokens, cached, output_tokens, cost)


__all__ = ["CloudAPI", "CloudReply"]
