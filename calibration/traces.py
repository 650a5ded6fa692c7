"""Live traces as calibration reads them: several run directories, one set of tables.

Calibration fits on some concurrency levels and validates on others, so every loader here can
restrict the rows to a set of levels; the run metadata (server settings per level, host) comes
along because fitted rates only mean something next to the settings they were measured under.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from agbench.config import ServerSettings
from agbench.errors import AgbenchError
from agbench.run_meta import RunMeta, RunSource
from agbench.store import RunStore


@dataclass
class LiveTraces:
    run_dirs: list[Path]
    metas: list[RunMeta]
    tables: dict[str, pd.DataFrame]
    concurrency: list[int] = field(default_factory=list)

    @property
    def meta(self) -> RunMeta:
        return self.metas[0]

    def server_settings(self, concurrency: int) -> ServerSettings | None:
        """The managed local server's settings at one level (the first run that has them)."""
        for meta in self.metas:
            if meta.local is not None and str(concurrency) in meta.local.servers:
                return meta.local.servers[str(concurrency)]
        return None


def load_live(run_dirs: list[Path], concurrency: list[int] | None = None) -> LiveTraces:
    """Load and concatenate live runs; ``concurrency`` keeps only those levels' rows."""
    if not run_dirs:
        raise AgbenchError("no run directory given")
    stores = [RunStore.open(Path(d)) for d in run_dirs]
    metas = [s.run_meta() for s in stores]
    for path, meta in zip(run_dirs, metas, strict=True):
        if meta.source is not RunSource.LIVE:
            raise AgbenchError(f"{path} is a {meta.source.value} run; calibration needs live runs")
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
