"""The one shape of ``run.json``: what a run directory says about how it was made.

Live sweeps, simulated runs and load runs write the same document, so every reader (metrics,
reports, calibration, trajectory extraction, ``--resume``) reads one shape. Fields a source
does not have stay at their defaults and are left out of the file; keys this version does not
know (an older or newer writer's) are kept in :attr:`RunMeta.extra` and written back
unchanged, so reading and re-writing a run never loses anything. Nothing here is a secret:
cloud keys are named (``api_key_env``), never stored, and URLs are written redacted.
"""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

from agbench.config import CloudSettings, PriceTable, ServerSettings
from agbench.hardware import HardwareInventory
from agbench.records import SCHEMA_VERSION
from agbench.schema import NON_NEGATIVE, Bound, check

#: ``agent_kind`` of a run made by ``agbench load`` (live) or its simulation.
LOAD_AGENT_KINDS = frozenset({"load", "sim-load"})


class RunSource(StrEnum):
    """What produced a run's traces (reports label simulated and load runs as such)."""

    LIVE = "live"
    SIM = "sim"
    LOAD = "load"


@dataclass
class LocalServers:
    """The local inference server(s) of a live run: one per concurrency level when managed."""

    url: str | None = None
    managed: bool = True
    model: str = ""
    servers: dict[str, ServerSettings] = field(default_factory=dict)  # by concurrency, as text

    def to_dict(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "managed": self.managed,
            "model": self.model,
            "servers": {c: s.to_dict() for c, s in self.servers.items()},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LocalServers:
        known = {f.name for f in dataclasses.fields(ServerSettings)}
        servers = {
            str(c): ServerSettings(**{k: v for k, v in s.items() if k in known})
            for c, s in (data.get("servers") or {}).items()
            if isinstance(s, dict)
        }
        return cls(
            url=data.get("url"),
            managed=bool(data.get("managed", True)),
            model=str(data.get("model", "")),
            servers=servers,
        )


def cloud_from_dict(data: dict[str, Any]) -> CloudSettings:
    """A ``cloud`` entry (live runs write all of it, simulated runs the model and prices)."""
    prices = data.get("prices") or {}
    known = {f.name for f in dataclasses.fields(PriceTable)}
    return CloudSettings(
        url=data.get("url"),
        model=str(data.get("model", CloudSettings().model)),
        api_key_env=str(data.get("api_key_env", CloudSettings().api_key_env)),
        prices=PriceTable(**{k: float(v) for k, v in prices.items() if k in known}),
        standin=bool(data.get("standin", False)),
    )


@dataclass
class RunMeta:
    """``run.json``. The first block is common to every source; then live-only and sim-only.

    ``options`` is the sweep's own option set (``agbench sweep``'s flags, JSON-ready), kept so
    ``--resume`` restores the same sweep; ``server`` and ``profile`` are the simulated device.
    """

    run_id: str
    source: RunSource = RunSource.LIVE
    device: str = ""
    agent_kind: str = ""
    seed: Annotated[int, NON_NEGATIVE] = 0
    architectures: list[str] = field(default_factory=list)
    concurrency: list[int] = field(default_factory=list)
    task_order: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)  # what every report must say ("cloud stand-in")
    cloud: CloudSettings | None = None
    schema: Annotated[int, NON_NEGATIVE] = SCHEMA_VERSION
    created: float = field(default_factory=time.time)
    finished: float | None = None
    stopped: bool | None = None
    # live sweeps
    backend: str | None = None
    time_limit_s: Annotated[float | None, Bound(gt=0, unit="s")] = None
    max_tokens: Annotated[int | None, Bound(ge=1, unit="tokens")] = None
    tool_call_parser: str | None = None
    compaction: str | None = None
    local: LocalServers | None = None
    cloud_standin: bool = False
    prompts: dict[str, dict[str, str]] = field(default_factory=dict)  # name -> {sha256, text}
    options: dict[str, Any] = field(default_factory=dict)
    host: dict[str, Any] = field(default_factory=dict)
    # device name -> its hardware inventory (a merged multi-device run holds one per device)
    hardware: dict[str, HardwareInventory] = field(default_factory=dict)
    tools_in_prompt: list[str] = field(default_factory=list)
    # simulated runs
    scenario: str | None = None
    scenario_file: str | None = None
    server: dict[str, Any] = field(default_factory=dict)
    sim: dict[str, Any] = field(default_factory=dict)
    profile: dict[str, Any] = field(default_factory=dict)
    roofline: list[str] = field(default_factory=list)  # the roofline model's assumptions, one a line
    # keys this version does not know, written back unchanged
    extra: dict[str, Any] = field(default_factory=dict)

    # Written even when empty or None: readers rely on them being present in live runs.
    ALWAYS = frozenset({"run_id", "source", "device", "agent_kind", "seed", "schema", "created"})
    LIVE_ALWAYS = frozenset(
        {"backend", "time_limit_s", "max_tokens", "tool_call_parser", "compaction", "cloud_standin", "labels"}
    )

    @property
    def is_load(self) -> bool:
        """Whether ``agbench load`` (or its simulation) made the run: requests, not agents."""
        return self.agent_kind in LOAD_AGENT_KINDS

    @property
    def is_standin(self) -> bool:
        """Whether a second local server stood in for the cloud."""
        return self.cloud_standin or bool(self.cloud and self.cloud.standin)

    def to_dict(self) -> dict[str, Any]:
        """The JSON document: unset optional fields are left out, ``extra`` comes last."""
        out: dict[str, Any] = {}
        always = self.ALWAYS | (self.LIVE_ALWAYS if self.source is RunSource.LIVE else frozenset())
        for f in dataclasses.fields(self):
            if f.name == "extra":
                continue
            value = getattr(self, f.name)
            if f.name not in always and value in (None, {}, []):
                continue
            if f.name == "cloud" and isinstance(value, CloudSettings):
                value = dataclasses.asdict(value)
            elif f.name == "local" and isinstance(value, LocalServers):
                value = value.to_dict()
            elif f.name == "hardware":
                value = {str(k): v.to_dict() for k, v in value.items()}
            elif isinstance(value, StrEnum):
                value = value.value
            out[f.name] = value
        return {**out, **self.extra}

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "run.json") -> RunMeta:
        """Read any run.json this project has written (older files lack fields: defaults); a
        value of the wrong type or out of range is a one-line ``ConfigError`` (agbench.schema)."""
        names = {f.name for f in dataclasses.fields(cls)} - {"extra"}
        known = {k: v for k, v in data.items() if k in names}
        extra = {k: v for k, v in data.items() if k not in names}
        cloud = known.pop("cloud", None)
        local = known.pop("local", None)
        hardware = known.pop("hardware", None)
        source = str(known.pop("source", RunSource.LIVE.value))
        try:
            known["source"] = RunSource(source)
        except ValueError:
            known["source"] = RunSource.LIVE
            extra["source"] = source  # written back as it was
        meta = cls(**{"run_id": "", **known}, extra=extra)
        meta.run_id = str(meta.run_id or "")
        meta.seed = int(meta.seed or 0)
        meta.schema = int(meta.schema or 0)
        meta.concurrency = [int(c) for c in meta.concurrency]
        meta.cloud = cloud_from_dict(cloud) if isinstance(cloud, dict) else None
        meta.local = LocalServers.from_dict(local) if isinstance(local, dict) else None
        meta.hardware = {
            str(k): HardwareInventory.from_dict(v)
            for k, v in (hardware.items() if isinstance(hardware, dict) else ())
            if isinstance(v, dict)
        }
        check(meta, where, skip=("hardware",))  # measured inventory, not configuration
        return meta


def is_load_run(run_dir: Path) -> bool:
    """Whether ``run_dir`` holds a load run, live or simulated (its run.json's agent kind);
    False where it has no readable run.json: the caller's own reading says what is wrong."""
    try:
        meta = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(meta, dict) and meta.get("agent_kind") in LOAD_AGENT_KINDS


__all__ = ["LOAD_AGENT_KINDS", "LocalServers", "RunMeta", "RunSource", "cloud_from_dict", "is_load_run"]
