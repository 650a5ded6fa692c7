"""What one run measures: device × deployment architecture × concurrency, plus server settings.

These are flat dataclasses (as Vidur keeps its configs) so live runs, simulated runs and
calibration profiles can all record them verbatim in a run's metadata.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Annotated, Any

from agbench.schema import Bound


class Architecture(StrEnum):
    """Where inference happens and who leads (paper, deployment architectures)."""

    LO = "LO"  # local agent plans and acts
    CO = "CO"  # cloud model plans, tools run locally
    HCL = "HCL"  # cloud agent leads, delegates to a local sub-agent
    HLL = "HLL"  # local agent leads, consults the cloud model

    @property
    def uses_local(self) -> bool:
        return self is not Architecture.CO

    @property
    def uses_cloud(self) -> bool:
        return self is not Architecture.LO


class AgentKind(StrEnum):
    """What decides an agent's next step; every report names it."""

    MODEL = "model"
    REPLAY = "replay"
    ORACLE = "oracle"
    NULL = "null"


class SandboxBackend(StrEnum):
    """Where a task's tools run: a Docker container or a bubblewrap sandbox (the one list)."""

    DOCKER = "docker"
    BWRAP = "bwrap"


#: The backend names, for ``click.Choice`` and error messages.
SANDBOX_BACKENDS = tuple(b.value for b in SandboxBackend)


def choices(enum: type[StrEnum]) -> list[str]:
    """An enum's values, in declaration order (``click.Choice(choices(SandboxBackend))``)."""
    return [member.value for member in enum]


def parse_architectures(text: str) -> list[Architecture]:
    """Parse ``"LO,CO"``; raises ValueError naming the bad entry."""
    out: list[Architecture] = []
    for part in text.split(","):
        name = part.strip().upper()
        if not name:
            continue
        try:
            out.append(Architecture(name))
        except ValueError:
            raise ValueError(f"unknown architecture {part.strip()!r} (expected LO, CO, HCL or HLL)") from None
    if not out:
        raise ValueError("no architecture given")
    return out


def parse_concurrency(text: str) -> list[int]:
    """Parse ``"1,2,4,8"``; every level must be a positive integer."""
    out: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if not part.isdigit() or int(part) < 1:
            raise ValueError(f"concurrency must be a positive integer, got {part!r}")
        out.append(int(part))
    if not out:
        raise ValueError("no concurrency level given")
    return out


@dataclass(frozen=True)
class Configuration:
    """One cell of the matrix. ``key`` names it in journals and tables."""

    device: str
    architecture: Architecture
    concurrency: int

    @property
    def key(self) -> str:
        return f"{self.device}|{self.architecture.value}|{self.concurrency}"

    @classmethod
    def from_key(cls, key: str) -> Configuration:
        device, arch, conc = key.rsplit("|", 2)
        return cls(device, Architecture(arch), int(conc))


@dataclass
class ServerSettings:
    """A local llama.cpp-style server as launched (or as simulated)."""

    model: str = "smollm2-135m"
    n_ctx: Annotated[int, Bound(ge=16, unit="KV tokens")] = 4096  # total KV cells (tokens) across all slots
    n_parallel: Annotated[int, Bound(ge=1, unit="slots")] = 1  # slots
    kv_unified: bool = False  # one shared pool instead of n_ctx / n_parallel per slot
    threads: Annotated[int, Bound(ge=1, unit="threads")] = 2
    batch_size: int = 512
    ubatch_size: int = 512
    cache_type_k: str = "f16"
    cache_type_v: str = "f16"
    chat_template: str | None = None
    # llama.cpp's --cpu-strict 1 over every core the process may use: compute thread i stays on
    # the i-th core. Two servers whose threads together outnumber the cores then always meet
    # one thread of each per core; left to the kernel, both threads of one server at times
    # share a core and it stalls at every barrier (docs/design.md, "Where the threads run").
    cpu_strict: bool = False

    @property
    def slot_ctx(self) -> int:
        """The most tokens one request may hold (prompt + output)."""
        return self.n_ctx if self.kv_unified else self.n_ctx // max(1, self.n_parallel)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class PriceTable:
    """Cloud prices in USD per million tokens (defaults shaped like DeepSeek V4 Flash)."""

    cached_input_per_m: Annotated[float, Bound(ge=0, unit="USD per million tokens")] = 0.028
    uncached_input_per_m: Annotated[float, Bound(ge=0, unit="USD per million tokens")] = 0.28
    output_per_m: Annotated[float, Bound(ge=0, unit="USD per million tokens")] = 0.42

    def cost(self, prompt_tokens: int, cached_tokens: int, completion_tokens: int) -> float:
        uncached = max(0, prompt_tokens - cached_tokens)
        return (
            cached_tokens * self.cached_input_per_m
            + uncached * self.uncached_input_per_m
            + completion_tokens * self.output_per_m
        ) / 1e6


@dataclass
class CloudSettings:
    """An OpenAI-compatible cloud endpoint. The key is named, never stored."""

    url: str | None = None
    model: str = "deepseek-v4-flash"
    api_key_env: str = "AGBENCH_CLOUD_API_KEY"
    prices: PriceTable = field(default_factory=PriceTable)
    standin: bool = False  # a second local server stands in for the cloud; reports say so
