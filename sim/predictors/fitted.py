"""Which rates the server uses: a calibrated/measured ``[server.rates]`` table, else the roofline.

Calibration fits the coefficients of ``ServerRates`` (prefill rate and its context slowdown;
decode step time vs batch size and KV tokens) with scipy and writes them under
``[server.rates]`` with ``source = "calibrated"``; this module just prefers them.
"""

from __future__ import annotations

from agbench.sim.predictors.roofline import Roofline
from agbench.sim.profiles import Profile, ServerRates


def resolve_rates(profile: Profile) -> ServerRates:
    if profile.server.rates is not None:
        return profile.server.rates
    return Roofline(profile.device, profile.model, profile.server).rates()


def alone_decode_tok_s(rates: ServerRates, ctx: float = 0.0) -> float:
    """Generated tokens/s of one sequence alone: what a single-user benchmark reports."""
    return float(rates.spec_tokens_per_step / rates.decode_step(1, ctx))


def total_decode_tok_s(rates: ServerRates, batch: int, ctx_each: float = 0.0) -> float:
    """Generated tokens/s of ``batch`` sequences together."""
    return float(batch * rates.spec_tokens_per_step / rates.decode_step(batch, batch * ctx_each))


__all__ = ["alone_decode_tok_s", "resolve_rates", "total_decode_tok_s"]
