"""Scenario files: a device profile plus what to run on it (TOML, in ``sim/scenarios/``).

A scenario file is a profile file (see ``profiles.py``: ``[device]``, ``[model]``,
``[server]``, ``[cloud]``, ``[tools]``, ``[behaviour]``) with two more tables::

    [scenario]
    name = "paper-rtx5090"
    description = "..."
    include = ["shared/model-27b.toml"]   # files laid under this one, in order (paths relative to it)
    archs = ["LO", "CO", "HCL", "HLL"]
    concurrency = [1, 2, 4, 8]
    seed = 0
    limit = 0                             # first N tasks of the suite; 0 = all

    [workload]
    kind = "synthetic"                    # or "replay"
    params = "shared/workload-paper.toml" # synthetic: SyntheticParams file (optional)
    trajectories = "path.jsonl"           # replay: a TrajectorySet file
    [workload.synthetic]                  # synthetic: inline overrides of the params
    ...

and, optionally, the ranges of its assumed values (``uncertainty.py``), drawn by
``agbench sim --draws N`` where no calibration data gives an interval::

    [uncertainty.device]
    bandwidth_efficiency = [0.55, 0.75]   # low, high; the stated value must lie inside
    [uncertainty.device.sources]
    bandwidth_efficiency = "why this range"

A name without a path (``paper-rtx5090``) resolves to ``sim/scenarios/<name>.toml``; unknown
names are a one-line error that lists the shipped scenarios.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from agbench.config import Architecture
from agbench.errors import AgbenchError
from agbench.resources import shipped_dir
from agbench.schema import NON_NEGATIVE, Bound, check
from agbench.shipped import find_toml, shipped_names
from agbench.sim.plain_data import deep_merge, load_toml
from agbench.sim.predictors.roofline import Roofline
from agbench.sim.profiles import Profile
from agbench.sim.uncertainty import read_uncertainty
from agbench.sim.workloads.base import Workload
from agbench.sim.workloads.replay import replay_workload
from agbench.sim.workloads.synthetic import SyntheticParams, synthetic_workload

SCENARIO_DIR = shipped_dir("scenarios")
PROFILE_TABLES = ("device", "model", "server", "cloud", "tools", "behaviour", "fit")


def shipped_scenarios() -> list[str]:
    return shipped_names(SCENARIO_DIR)


@dataclass
class Scenario:
    name: str
    profile: Profile
    description: str = ""
    archs: list[Architecture] = field(default_factory=lambda: list(Architecture))
    concurrency: list[int] = field(default_factory=lambda: [1, 2, 4, 8])
    seed: Annotated[int, NON_NEGATIVE] = 0
    limit: Annotated[int, Bound(ge=0, unit="tasks; 0 = all")] = 0
    workload_kind: Annotated[str, Bound(choices=("synthetic", "replay"))] = "synthetic"
    synthetic: SyntheticParams = field(default_factory=SyntheticParams)
    trajectories: Path | None = None
    path: Path | None = None
    #: ``[uncertainty]``: profile fields whose stated value is an assumption, as
    #: "table.key" -> (low, high); what ``agbench sim --draws`` varies where no calibration
    #: data exists (uncertainty.py)
    uncertain: dict[str, tuple[float, float]] = field(default_factory=dict)
    uncertain_sources: dict[str, str] = field(default_factory=dict)

    def workload(
        self, seed: int | None = None, trajectories: Path | None = None, limit: int | None = None
    ) -> Workload:
        """The scenario's workload (a ``trajectories`` file given here replaces it)."""
        source = trajectories or (self.trajectories if self.workload_kind == "replay" else None)
        if source is not None:
            wl = replay_workload(source, self.profile.behaviour.sensitive_items_per_task)
        else:
            wl = synthetic_workload(self.synthetic, self.seed if seed is None else seed)
        n = limit if limit is not None else (self.limit or None)
        return wl.limited(n)

    def with_profile(self, overlay_path: Path) -> Scenario:
        """This scenario with a calibrated profile file's tables laid over its own."""
        data = load_toml(overlay_path)
        if isinstance(data.get("rates"), dict) and isinstance(data.get("meta"), dict):
            # a server profile's rates sit at the top; a calibrated profile's under [server]
            raise AgbenchError(
                f"{overlay_path} is a server profile (agbench profile-server), not a calibrated "
                f"profile: agbench calibrate RUN --server-profile {overlay_path} --fit-concurrency 1 "
                "-o PROFILE.toml makes one"
            )
        tables = {k: v for k, v in data.items() if k in PROFILE_TABLES}
        if not tables:
            raise AgbenchError(f"{overlay_path}: no profile table ({', '.join(PROFILE_TABLES)})")
        self.profile = self.profile.merged(tables)
        return self


def resolve_scenario_path(name_or_path: str | Path) -> Path:
    path = find_toml(name_or_path, SCENARIO_DIR)
    if path is not None:
        return path
    raise AgbenchError(
        f"unknown scenario {str(name_or_path)!r} (shipped: {', '.join(shipped_scenarios())}; or a TOML file)"
    )


def _read_with_includes(path: Path, seen: tuple[Path, ...] = (), missing_ok: bool = False) -> dict[str, Any]:
    if path.resolve() in seen:
        raise AgbenchError(f"{path}: include cycle")
    data = load_toml(path)
    merged: dict[str, Any] = {}
    for inc in data.get("scenario", {}).get("include", []):
        if missing_ok and not (path.parent / inc).is_file():
            continue
        merged = deep_merge(
            merged, _read_with_includes(path.parent / inc, (*seen, path.resolve()), missing_ok)
        )
    return dict(deep_merge(merged, data))


def load_scenario(name_or_path: str | Path, missing_generated_ok: bool = False) -> Scenario:
    """Read a scenario. ``missing_generated_ok``: included files and the workload params file
    that do not exist yet (what a fit generates) are skipped instead of being an error; only
    the fit that generates them asks for this."""
    path = resolve_scenario_path(name_or_path)
    data = _read_with_includes(path, missing_ok=missing_generated_ok)
    where = str(path)
    meta = data.get("scenario", {})
    known = {"name", "description", "include", "archs", "concurrency", "seed", "limit"}
    unknown = sorted(set(meta) - known)
    if unknown:
        raise AgbenchError(f"{where}: [scenario] unknown key(s) {', '.join(unknown)}")
    extra = sorted(set(data) - set(PROFILE_TABLES) - {"scenario", "workload", "uncertainty"})
    if extra:
        raise AgbenchError(f"{where}: unknown table(s) {', '.join(extra)}")
    profile = Profile.from_dict({k: v for k, v in data.items() if k in PROFILE_TABLES}, where)
    try:
        archs = [Architecture(str(a).upper()) for a in meta.get("archs", [a.value for a in Architecture])]
    except ValueError as exc:
        raise AgbenchError(f"{where}: [scenario].archs: {exc}") from None
    concurrency = meta.get("concurrency", [1, 2, 4, 8])
    if not isinstance(concurrency, list) or not all(
        isinstance(c, int) and not isinstance(c, bool) for c in concurrency
    ):
        raise AgbenchError(
            f"{where}: [scenario].concurrency = {concurrency!r} (allowed: a list of integers >= 1)"
        )
    if not concurrency or min(concurrency) < 1:
        raise AgbenchError(f"{where}: [scenario].concurrency must list positive integers")
    wl = dict(data.get("workload", {}))
    kind = str(wl.pop("kind", "synthetic"))
    if kind not in ("synthetic", "replay"):
        raise AgbenchError(f"{where}: [workload].kind must be 'synthetic' or 'replay', got {kind!r}")
    params: dict[str, Any] = {}
    if "params" in wl:
        params_path = path.parent / str(wl.pop("params"))
        if not (missing_generated_ok and not params_path.is_file()):
            params = load_toml(params_path)
    params = deep_merge(params, wl.pop("synthetic", {}))
    trajectories = wl.pop("trajectories", None)
    if wl:
        raise AgbenchError(f"{where}: [workload] unknown key(s) {', '.join(sorted(wl))}")
    roof = Roofline(profile.device, profile.model, profile.server)
    for level in concurrency:  # a pool that cannot be allocated is a clear error, not a simulation
        roof.check_fits(level, where)
    scenario = Scenario(
        name=str(meta.get("name", path.stem)),
        profile=profile,
        description=str(meta.get("description", "")),
        archs=archs,
        concurrency=concurrency,
        seed=int(meta.get("seed", 0)),
        limit=int(meta.get("limit", 0)),
        workload_kind=kind,
        synthetic=SyntheticParams.from_dict(params, f"{where} [workload]"),
        trajectories=(path.parent / str(trajectories)) if trajectories else None,
        path=path,
    )
    scenario.uncertain, scenario.uncertain_sources = read_uncertainty(
        data.get("uncertainty", {}), profile, where
    )
    check(scenario, f"{where} [scenario]")  # types and ranges (agbench.schema)
    return scenario


__all__ = ["SCENARIO_DIR", "Scenario", "load_scenario", "resolve_scenario_path", "shipped_scenarios"]
