"""Open-loop request workloads: what `agbench load` sends and what `agbench sim --requests` replays.

An agent sweep measures the server *and* the agents' behaviour together; an open-loop load
test measures the server alone, so a server-model error can be told apart from an
agent-behaviour error. Requests arrive at fixed times whatever the server does (open loop, as
GuideLLM and ``vllm bench serve`` do it), each with an exact prompt size, a forced output size
and, optionally, a shared-prefix group (requests of one group start with the same prefix, so
the server's prefix cache sees what an agent's repeated system prompt would give it).

A workload is a list of *levels*, run one after the other: a constant rate, a Poisson rate, or
a replayed request trace. In the trace tables a level is one attempt of the pseudo-task
``load@<name>`` under the configuration ``device|LO|0`` (concurrency 0 = open loop), so load
runs are journalled, resumed and compacted exactly like sweeps: a finished level is never
re-run.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agbench.config import Architecture, Configuration
from agbench.errors import AgbenchError

#: Concurrency value of a load configuration: open loop, no harness-side bound.
OPEN_LOOP = 0
LOAD_TASK_PREFIX = "load@"
# What ``agbench profile-server`` writes: every measured call, and the fit of them.
PROFILE_CALLS_FILE = "profile_calls.jsonl"
SERVER_PROFILE_FILE = "server_profile.toml"


@dataclass(frozen=True)
class RequestSpec:
    """One request of a level: when it arrives (seconds from the level's start) and its size."""

    t: float
    prompt_tokens: int
    output_tokens: int
    prefix_group: str = ""  # requests of one group share their first ``prefix_tokens`` tokens
    prefix_tokens: int = 0

    def __post_init__(self) -> None:
        if not math.isfinite(self.t) or self.t < 0:
            raise ValueError(f"arrival time must be a finite number >= 0, got {self.t!r}")
        if self.prompt_tokens < 1 or self.output_tokens < 1:
            raise ValueError(
                f"prompt and output tokens must be >= 1, got {self.prompt_tokens}/{self.output_tokens}"
            )
        if not 0 <= self.prefix_tokens < self.prompt_tokens:
            raise ValueError(
                f"prefix_tokens must be in [0, prompt_tokens), got {self.prefix_tokens} of {self.prompt_tokens}"
            )


@dataclass(frozen=True)
class LoadLevel:
    """One level of a load run: a name (its rate or trace), its offered rate and its requests."""

    name: str
    kind: str  # "constant" | "poisson" | "trace"
    rate: float | None  # offered requests per second (None for a trace: derived)
    requests: tuple[RequestSpec, ...] = field(default_factory=tuple)

    @property
    def task(self) -> str:
        """The pseudo-task id of the level in the trace tables."""
        return f"{LOAD_TASK_PREFIX}{self.name}"

    @property
    def offered_rate(self) -> float:
        """Requests per second offered: the set rate, or count / arrival span for a trace."""
        if self.rate is not None:
            return self.rate
        if len(self.requests) < 2:
            return 0.0
        span = self.requests[-1].t - self.requests[0].t
        return (len(self.requests) - 1) / span if span > 0 else math.inf


def load_configuration(device: str) -> Configuration:
    """The configuration every load level is recorded under."""
    return Configuration(device, Architecture.LO, OPEN_LOOP)


@dataclass(frozen=True)
class TokenDistribution:
    """A token count: fixed ``N``, uniform ``LO:HI``, or ``lognormal:MEDIAN,SIGMA`` (clipped)."""

    kind: str
    a: float
    b: float = 0.0

    @classmethod
    def parse(cls, text: str | int) -> TokenDistribution:
        s = str(text).strip()
        try:
            if s.startswith("lognormal:"):
                median, sigma = (float(x) for x in s.removeprefix("lognormal:").split(","))
                if median < 1 or sigma < 0:
                    raise ValueError
                return cls("lognormal", median, sigma)
            if ":" in s:
                lo, hi = (int(x) for x in s.split(":"))
                if not 1 <= lo <= hi:
                    raise ValueError
                return cls("uniform", lo, hi)
            n = int(s)
            if n < 1:
                raise ValueError
            return cls("fixed", n)
        except ValueError:
            raise ValueError(
                f"bad token count {s!r}: use N, LO:HI or lognormal:MEDIAN,SIGMA (all >= 1)"
            ) from None

    def draw(self, rng: random.Random) -> int:
        if self.kind == "fixed":
            return int(self.a)
        if self.kind == "uniform":
            return rng.randint(int(self.a), int(self.b))
        return max(1, round(rng.lognormvariate(math.log(self.a), self.b)))


def rate_level(
    rate: float,
    n: int,
    prompt: TokenDistribution,
    output: TokenDistribution,
    *,
    poisson: bool,
    seed: int,
    prefix_tokens: int = 0,
) -> LoadLevel:
    """``n`` requests at ``rate`` per second: evenly spaced, or with exponential gaps."""
    if not math.isfinite(rate) or rate <= 0:
        raise ValueError(f"rate must be a positive number of requests per second, got {rate!r}")
    if n < 1:
        raise ValueError(f"requests per level must be >= 1, got {n}")
    rng = random.Random(f"{seed}|{'poisson' if poisson else 'constant'}|{rate}")
    t = 0.0
    out: list[RequestSpec] = []
    for i in range(n):
        if i:
            t += rng.expovariate(rate) if poisson else 1.0 / rate
        p = prompt.draw(rng)
        prefix = min(prefix_tokens, p - 1)
        out.append(RequestSpec(round(t, 6), p, output.draw(rng), "shared" if prefix else "", prefix))
    name = f"{'poisson' if poisson else 'rate'}-{rate:g}"
    return LoadLevel(name, "poisson" if poisson else "constant", rate, tuple(out))


def read_trace(path: Path) -> LoadLevel:
    """A request trace: JSON lines ``{"t", "prompt_tokens", "output_tokens", ["prefix_group",
    "prefix_tokens"]}``, sorted by ``t`` on reading. Raises AgbenchError naming the bad line."""
    if not path.is_file():
        raise AgbenchError(f"request trace {path} does not exist")
    requests: list[RequestSpec] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            requests.append(
                RequestSpec(
                    float(row["t"]),
                    int(row["prompt_tokens"]),
                    int(row["output_tokens"]),
                    str(row.get("prefix_group", "")),
                    int(row.get("prefix_tokens", 0)),
                )
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise AgbenchError(f"{path}:{n}: bad request line ({exc})") from None
    if not requests:
        raise AgbenchError(f"request trace {path} holds no requests")
    requests.sort(key=lambda r: r.t)
    return LoadLevel(f"trace-{path.stem}", "trace", None, tuple(requests))


def write_trace(level: LoadLevel, path: Path) -> None:
    """Write a level's requests as a request trace (what ``read_trace`` reads back)."""
    path.write_text("".join(json.dumps(asdict(r)) + "\n" for r in level.requests), encoding="utf-8")


def level_to_dict(level: LoadLevel) -> dict[str, Any]:
    return {
        "name": level.name,
        "kind": level.kind,
        "rate": level.rate,
        "requests": [asdict(r) for r in level.requests],
    }


def level_from_dict(data: dict[str, Any]) -> LoadLevel:
    return LoadLevel(
        str(data["name"]),
        str(data["kind"]),
        None if data.get("rate") is None else float(data["rate"]),
        tuple(RequestSpec(**r) for r in data.get("requests", [])),
    )


def parse_rates(text: str) -> list[float]:
    """``0.2,0.5,1`` -> [0.2, 0.5, 1.0]; ValueError on anything else."""
    out: list[float] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            rate = float(part)
        except ValueError:
            raise ValueError(f"rate must be a number of requests per second, got {part!r}") from None
        if not math.isfinite(rate) or rate <= 0:
            raise ValueError(f"rate must be positive, got {part!r}")
        out.append(rate)
    if not out:
        raise ValueError("no rate given")
    return out


def levels_of_run(run_dir: Path) -> list[LoadLevel]:
    """The levels a load run (live or simulated) sent, from its run.json."""
    meta_path = run_dir / "run.json"
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise AgbenchError(f"{run_dir} is not a load run directory ({exc})") from None
    options = meta.get("options") if isinstance(meta, dict) else None
    if not isinstance(options, dict) or "levels" not in options:
        kind = meta.get("agent_kind") if isinstance(meta, dict) else None
        what = f"a {kind} run" if kind else "not a load run"
        raise AgbenchError(
            f"{run_dir} is {what}: its run.json names no load levels (agbench load writes them)"
        )
    try:
        levels = [level_from_dict(d) for d in options["levels"]]
    except (ValueError, KeyError, TypeError) as exc:
        raise AgbenchError(f"{run_dir}: a load level in run.json is malformed ({exc})") from None
    return levels


def levels_for_sim(
    requests: Path | None, rates: str | None, n: int, prompt: str, output: str, seed: int
) -> list[LoadLevel]:
    """``agbench sim --requests TRACE|RUN_DIR`` or ``--rate R,..``: the levels to simulate."""
    if (requests is None) == (rates is None):
        raise AgbenchError("give exactly one of --requests or --rate")
    if requests is not None:
        return levels_of_run(requests) if requests.is_dir() else [read_trace(requests)]
    dist_p, dist_o = TokenDistribution.parse(prompt), TokenDistribution.parse(output)
    return [rate_level(r, n, dist_p, dist_o, poisson=False, seed=seed) for r in parse_rates(str(rates))]


__all__ = [
    "LOAD_TASK_PREFIX",
    "OPEN_LOOP",
    "PROFILE_CALLS_FILE",
    "SERVER_PROFILE_FILE",
    "LoadLevel",
    "RequestSpec",
    "TokenDistribution",
    "level_from_dict",
    "level_to_dict",
    "levels_for_sim",
    "levels_of_run",
    "load_configuration",
    "parse_rates",
    "rate_level",
    "read_trace",
    "write_trace",
]
