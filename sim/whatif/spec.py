"""What-if spec files: which deployments to search over and what to optimise (TOML).

A spec names a search space of deployment settings and the objectives to trade off::

    [whatif]
    name = "paper-max395-grid"
    search = "grid"          # every combination; or "random": `samples` points drawn from it
    samples = 100            # random only
    seed = 0                 # workload seed (and the random search's draw)
    limit = 0                # tasks simulated per point (first N of the seed's order); 0 = all
    objectives = ["success", "goodput", "mean_completion", "cloud_cost", "exposure"]

    [space]                  # every key optional: absent = the device scenario's own value
    device = ["paper-max395", "paper-rtx5090"]  # scenario names or files: device, server, cloud, workload
    params_b = [9.0, 27.0]   # model size (weights and FLOPs; the attention shape stays the scenario's)
    weight_quant = ["Q4_K_M", "Q6_K", 8.5]   # llama.cpp quantisation names or bits per weight
    kv_cache = ["f16", "q8_0"]               # KV-cache type names or bits per value
    pool_tokens = [32768, 65536]             # KV cells of the server's pool
    slots = [4, 8]                           # llama.cpp --parallel
    kv = ["unified", "per-slot"]             # one shared pool, or pool / slots per slot
    threads = [8]
    arch = ["LO", "CO", "HCL", "HLL"]
    concurrency = [1, 2, 4, 8]
    guard = ["off", "presidio"]              # the privacy guard (sim/privacy_guard.py): off, declared, presidio

A name without a path resolves to ``sim/whatif/specs/<name>.toml``; unknown keys, empty
axes and bad values are one-line errors naming the file and key.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agbench.config import Architecture
from agbench.errors import AgbenchError
from agbench.resources import shipped_dir
from agbench.shipped import find_toml, shipped_names
from agbench.sim.plain_data import load_toml

SPEC_DIR = shipped_dir("whatif-specs")

#: Effective bits per weight of llama.cpp's quantisation types (block scales included).
WEIGHT_BITS: dict[str, float] = {
    "Q2_K": 2.63,
    "Q3_K_M": 3.91,
    "Q4_0": 4.5,
    "Q4_K_M": 4.85,
    "Q5_K_M": 5.69,
    "Q6_K": 6.56,
    "Q8_0": 8.5,
    "F16": 16.0,
    "BF16": 16.0,
}
#: Bits per cached K/V value of llama.cpp's cache types (``--cache-type-k/-v``).
KV_BITS: dict[str, float] = {
    "F16": 16.0,
    "BF16": 16.0,
    "Q8_0": 8.5,
    "Q5_1": 6.0,
    "Q5_0": 5.5,
    "Q4_1": 5.0,
    "Q4_0": 4.5,
}

OBJECTIVES: dict[str, str] = {  # name -> "max" or "min"
    "success": "max",
    "goodput": "max",
    "mean_completion": "min",
    "cloud_cost": "min",
    "exposure": "min",
}
AXES = (
    "device",
    "params_b",
    "weight_quant",
    "kv_cache",
    "pool_tokens",
    "slots",
    "kv",
    "threads",
    "arch",
    "concurrency",
    "guard",
)


@dataclass(frozen=True)
class Point:
    """One deployment of the search: every axis resolved (None = the scenario's own value)."""

    device: str
    arch: str
    concurrency: int
    params_b: float | None = None
    weight_quant: str | None = None
    kv_cache: str | None = None
    pool_tokens: int | None = None
    slots: int | None = None
    kv: str | None = None
    threads: int | None = None
    guard: str | None = None  # the privacy guard (sim/privacy_guard.py); None/"off": none

    @property
    def label(self) -> str:
        parts = [self.device, self.arch, f"C={self.concurrency}"]
        for name, value in (
            ("", self.params_b and f"{self.params_b:g}B"),
            ("w", self.weight_quant),
            ("kv", self.kv_cache),
            ("pool", self.pool_tokens),
            ("slots", self.slots),
            ("", self.kv),
            ("threads", self.threads),
            ("guard", self.guard),
        ):
            if value is not None:
                parts.append(f"{name}={value}" if name else str(value))
        return " ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class WhatIfSpec:
    name: str
    space: dict[str, list[Any]]
    search: str = "grid"
    samples: int = 100
    seed: int = 0
    limit: int = 0
    objectives: list[str] = field(default_factory=lambda: list(OBJECTIVES))
    path: Path | None = None

    def grid_size(self) -> int:
        n = 1
        for values in self.space.values():
            n *= len(values)
        return n

    def points(self) -> list[Point]:
        """The points to simulate: the whole grid, or a seeded sample of it without repeats."""
        names = list(self.space)
        if self.search == "grid":
            combos = list(itertools.product(*(self.space[n] for n in names)))
        else:
            rng = random.Random(self.seed)
            total = self.grid_size()
            picks = sorted(rng.sample(range(total), min(self.samples, total)))
            combos = [_combo(self.space, names, i) for i in picks]
        return [Point(**dict(zip(names, combo, strict=True))) for combo in combos]


def _combo(space: dict[str, list[Any]], names: list[str], index: int) -> tuple[Any, ...]:
    """The ``index``-th grid combination (itertools.product order) without building the grid."""
    out: list[Any] = []
    for name in reversed(names):
        values = space[name]
        index, r = divmod(index, len(values))
        out.append(values[r])
    return tuple(reversed(out))


def weight_bits(value: str | float) -> float:
    return _bits(value, WEIGHT_BITS, "weight_quant")


def kv_bits(value: str | float) -> float:
    return _bits(value, KV_BITS, "kv_cache")


def _bits(value: str | float, table: dict[str, float], key: str) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        if not 1 <= float(value) <= 32:
            raise AgbenchError(f"[space].{key}: {value} bits is out of range (1-32)")
        return float(value)
    bits = table.get(str(value).upper())
    if bits is None:
        raise AgbenchError(
            f"[space].{key}: unknown type {value!r} (known: {', '.join(table)}; or bits as a number)"
        )
    return bits


def resolve_spec_path(name_or_path: str | Path) -> Path:
    path = find_toml(name_or_path, SPEC_DIR)
    if path is not None:
        return path
    known = ", ".join(shipped_names(SPEC_DIR))
    raise AgbenchError(f"unknown what-if spec {str(name_or_path)!r} (shipped: {known}; or a TOML file)")


def _axis(where: str, name: str, values: Any) -> list[Any]:
    if not isinstance(values, list) or not values:
        raise AgbenchError(f"{where}: [space].{name} must be a non-empty list")
    if name == "arch":
        try:
            return [Architecture(str(v).upper()).value for v in values]
        except ValueError as exc:
            raise AgbenchError(f"{where}: [space].arch: {exc}") from None
    if name == "guard":
        from agbench.sim.privacy_guard import guard_axis

        return guard_axis(where, values)
    if name == "kv":
        bad = [v for v in values if v not in ("unified", "per-slot")]
        if bad:
            raise AgbenchError(f"{where}: [space].kv must list 'unified' and/or 'per-slot', got {bad}")
        return list(values)
    if name in ("concurrency", "slots", "pool_tokens", "threads"):
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in values):
            raise AgbenchError(f"{where}: [space].{name} must list positive integers")
        return list(values)
    if name == "params_b":
        if not all(isinstance(v, int | float) and v > 0 for v in values):
            raise AgbenchError(f"{where}: [space].params_b must list positive numbers (billions)")
        return [float(v) for v in values]
    try:
        if name == "weight_quant":
            [weight_bits(v) for v in values]
        elif name == "kv_cache":
            [kv_bits(v) for v in values]
    except AgbenchError as exc:
        raise AgbenchError(f"{where}: {exc}") from None
    if name == "device":
        return [str(v) for v in values]
    return list(values)


def load_spec(name_or_path: str | Path) -> WhatIfSpec:
    """Read and check a spec (one-line AgbenchError on any problem)."""
    path = resolve_spec_path(name_or_path)
    where = str(path)
    data = load_toml(path)
    extra = sorted(set(data) - {"whatif", "space"})
    if extra:
        raise AgbenchError(f"{where}: unknown table(s) {', '.join(extra)} (expected [whatif], [space])")
    meta = dict(data.get("whatif", {}))
    known = {"name", "search", "samples", "seed", "limit", "objectives"}
    unknown = sorted(set(meta) - known)
    if unknown:
        raise AgbenchError(f"{where}: [whatif] unknown key(s) {', '.join(unknown)}")
    raw_space = dict(data.get("space", {}))
    unknown = sorted(set(raw_space) - set(AXES))
    if unknown:
        raise AgbenchError(f"{where}: [space] unknown key(s) {', '.join(unknown)} (axes: {', '.join(AXES)})")
    for required in ("device", "arch", "concurrency"):
        if required not in raw_space:
            raise AgbenchError(f"{where}: [space].{required} is required")
    space = {name: _axis(where, name, raw_space[name]) for name in AXES if name in raw_space}
    search = str(meta.get("search", "grid"))
    if search not in ("grid", "random"):
        raise AgbenchError(f"{where}: [whatif].search must be 'grid' or 'random', got {search!r}")
    objectives = [str(o) for o in meta.get("objectives", list(OBJECTIVES))]
    bad = [o for o in objectives if o not in OBJECTIVES]
    if bad or len(objectives) < 2:
        raise AgbenchError(
            f"{where}: [whatif].objectives: need at least two of {', '.join(OBJECTIVES)}"
            + (f" (unknown: {', '.join(bad)})" if bad else "")
        )
    samples = int(meta.get("samples", 100))
    limit = int(meta.get("limit", 0))
    if samples < 1 or limit < 0:
        raise AgbenchError(f"{where}: [whatif].samples must be >= 1 and limit >= 0")
    return WhatIfSpec(
        name=str(meta.get("name", path.stem)),
        space=space,
        search=search,
        samples=samples,
        seed=int(meta.get("seed", 0)),
        limit=limit,
        objectives=objectives,
        path=path,
    )


__all__ = [
    "AXES",
    "KV_BITS",
    "OBJECTIVES",
    "SPEC_DIR",
    "WEIGHT_BITS",
    "Point",
    "WhatIfSpec",
    "kv_bits",
    "load_spec",
    "resolve_spec_path",
    "weight_bits",
]
