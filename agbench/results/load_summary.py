"""``summary.json`` of an open-loop load run (``agbench load``, or the simulator replaying one):
one entry per offered level, in the run's level order (agbench.metrics.load)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from agbench.results.summary import ResultModel


class LoadLevel(ResultModel):
    """One offered level: what was sent, what came back, and its latency percentiles
    (TTFT, inter-token latency, end to end; agbench.metrics.load.PERCENTILES)."""

    level: str
    kind: str = ""
    finished: bool = False
    offered_rate: float | None = None
    requests: int = 0
    completed: int = 0
    errors: dict[str, int] = Field(default_factory=dict)
    wall_s: float | None = None
    throughput_rps: float | None = None
    output_tok_s: float | None = None
    prompt_tokens_mean: float | None = None
    cached_tokens_mean: float | None = None
    completion_tokens_mean: float | None = None
    ttft_p50_s: float | None = None
    ttft_p90_s: float | None = None
    ttft_p99_s: float | None = None
    itl_p50_s: float | None = None
    itl_p90_s: float | None = None
    itl_p99_s: float | None = None
    e2e_p50_s: float | None = None
    e2e_p90_s: float | None = None
    e2e_p99_s: float | None = None
    server_queue_p50_s: float | None = None


class LoadSummary(ResultModel):
    """``summary.json`` of a load run (source ``load``, or ``sim`` for a simulated one)."""

    schema_version: int = Field(default=0, description="layout version; 0: written before versioning")
    source: Literal["load", "sim", "live"] = "load"
    run_id: str = ""
    device: str = ""
    labels: list[str] = Field(default_factory=list)
    levels: list[LoadLevel]


__all__ = ["LoadLevel", "LoadSummary"]
