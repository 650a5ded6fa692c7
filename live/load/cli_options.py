"""Turning ``agbench load``'s flags into :class:`LoadOptions` (every check a one-line error)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from agbench.config import ServerSettings
from agbench.errors import AgbenchError
from agbench.live.load.run import LoadOptions
from agbench.load import LoadLevel, TokenDistribution, parse_rates, rate_level, read_trace


def _levels(kw: dict[str, Any]) -> list[LoadLevel]:
    given = [name for name in ("rates", "poisson", "trace_file") if kw.get(name)]
    if len(given) != 1:
        raise AgbenchError("give exactly one of --rates, --poisson or --trace")
    if kw.get("trace_file"):
        return [read_trace(Path(kw["trace_file"]))]
    prompt = TokenDistribution.parse(kw["prompt_tokens"])
    output = TokenDistribution.parse(kw["output_tokens"])
    poisson = bool(kw.get("poisson"))
    rates = parse_rates(kw["poisson"] if poisson else kw["rates"])
    return [
        rate_level(
            r,
            kw["n_requests"],
            prompt,
            output,
            poisson=poisson,
            seed=kw["seed"],
            prefix_tokens=kw["prefix_tokens"],
        )
        for r in rates
    ]


def load_options_from_cli(kw: dict[str, Any]) -> tuple[LoadOptions, bool]:
    """(options, resume?) from the click keyword arguments of ``agbench load``."""
    if kw.get("resume"):
        out = Path(kw["resume"])
        return LoadOptions(levels=[], out=out, quiet=kw["quiet"]), True
    out = Path(kw["out"]) if kw.get("out") else Path("runs") / time.strftime("load-%Y%m%d-%H%M%S")
    server = ServerSettings(
        model=kw["model"],
        n_ctx=kw["ctx"],
        n_parallel=kw["parallel"],
        kv_unified=kw["kv_unified"],
        threads=kw["threads"],
        cpu_strict=kw["cpu_strict"],
    )
    options = LoadOptions(
        levels=_levels(kw),
        out=out,
        device=kw["device"],
        local_url=kw.get("local_url"),
        model=kw["model"],
        server=server,
        api_key_env=kw.get("api_key_env"),
        max_level_s=kw["max_level_s"],
        seed=kw["seed"],
        quiet=kw["quiet"],
    )
    return options, False
