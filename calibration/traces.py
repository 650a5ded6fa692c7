"""Live traces as calibration reads them: several run directories, one set of tables.

Calibration fits on some concurrency levels and validates on others, so every loader here can
restrict the rows to a set of levels; the run metadata (server settings per level, host) comes
along because fitted rates only mean something next to the settings they were measured under.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from agbench.errors import AgbenchError
from agbench.store import RunStore


@dataclass
class LiveTraces:
    run_dirs: list[Path]
    metas: list[dict[str, Any]]
    tables: dict[str, pd.DataFrame]
    concurrency: list[int] = field(default_factory=list)

    @property
    def meta(self) -> dict[str, Any]:
        return self.metas[0]

    def server_settings(self, concurrency: int) -> dict[str, Any]:
        """The managed local server's settings at one level (the first run that has them)."""
        for meta in self.metas:
            servers = meta.get("local", {}).get("servers", {})
            if str(concurrency) in servers:
                return dict(servers[str(concurrency)])
        return {}


def load_live(run_dirs: list[Path], concurrency: list[int] | None = None) -> LiveTraces:
    """Load and concatenate live runs; ``concurrency`` keeps only those levels' rows."""
    if not run_dirs:
        raise AgbenchError("no run directory given")
    stores = [RunStore.open(Path(d)) for d in run_dirs]
    metas = [s.meta() for s in stores]
    for path, meta in zip(run_dirs, metas, strict=True):
        if meta.get("source", "live") != "live":
            raise AgbenchError(f"{path} is a {meta.get('source')} run; calibration needs live runs")
    per_store = [s.tables() for s in stores]
    tables: dict[str, pd.DataFrame] = {}
    for name in per_store[0]:
        frames = [t[name] for t in per_store if not t[name].empty]
        frame = pd.concat(frames, ignore_index=True) if frames else per_store[0][name]
        if concurrency is not None and "concurrency" in frame.columns:
            frame = frame[frame["concurrency"].isin(concurrency)].reset_index(drop=True)
        tables[name] = frame
    levels = (
        sorted(set(tables["task_runs"]["concurrency"].astype(int))) if not tables["task_runs"].empty else []
    )
    if not levels:
        raise AgbenchError(
            "the run(s) hold no task attempt"
            + (f" at concurrency {','.join(map(str, concurrency))}" if concurrency else "")
        )
    return LiveTraces([Path(d) for d in run_dirs], metas, tables, levels)
