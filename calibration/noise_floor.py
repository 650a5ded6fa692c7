"""The noise floor: how far two live recordings of the same configurations land apart.

A live figure is one sample. The same sweep recorded again, with the same settings and
trajectories, minutes or hours later on the same machine, gives other values: the server runs
at another speed, two agents fall into step or out of it, a tool waits on another core. No
simulation can predict one recording closer than that, and an interval that is narrower than
it claims to know which sample a recording will be. The interval draws (intervals.py) model
part of it (the server's speed per configuration, timing jitter), not all: on the development
set's two-thread repeat two agents' lockstep at C = 2-4 differs between recordings whatever the
draws give.

Measured here, per figure, from pairs of recordings of the same sweep: for each configuration
both recorded, the log of one value over the other; each pair's mean log ratio is taken out
(a whole recording that ran slower is what calibrating on that recording's own C = 1 absorbs),
and what is left is the spread between configurations, of two recordings at once, so a single
recording's is that over sqrt(2):

    sigma = sqrt(sum((r - mean_pair(r))^2) / (n - pairs)) / sqrt(2)

``widened`` applies it: a 90 % band is never narrower, on either side of its point, than
1.645 sigma in log space. It is a floor, not a term added in quadrature, because the draws
already vary the server's speed per configuration, which the floor holds too; adding both
would count that twice.

``agbench noise-floor A B [C D ...] -o FILE`` measures it from pairs of run directories;
``agbench calibrate`` lays a floor into the profile (``fit.noise_floor``; by default the one this
package ships, measured on the project's development repeats, ``noise_floors/development.toml``
beside this module), and ``agbench validate`` and ``agbench sim --draws`` widen each interval to it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import tomli_w

from agbench.calibration.compared_metrics import METRICS, metric_value
from agbench.errors import AgbenchError
from agbench.metrics import summarize
from agbench.resources import shipped_dir
from agbench.results import RunSummary
from agbench.results.summary import MetricInterval
from agbench.sim.plain_data import load_toml
from agbench.store import RunStore

#: The floor this package ships (``noise_floors/development.toml``): the project's development
#: repeats on its reference machine (the file says which recordings;
#: tests/calibration/test_noise_floor.py measures it again).
DEFAULT_FLOOR = "development.toml"
#: The standard normal's 95th percentile: a 90 % band's half-width in sigmas.
Z90 = 1.6448536269514722


def log_ratios(a: RunSummary, b: RunSummary) -> dict[str, list[float]]:
    """Per relative metric (dotted key), log(a / b) over the configurations both recorded with a
    positive value."""
    mine = {c.key: c for c in b.configurations}
    out: dict[str, list[float]] = {}
    for metric in METRICS:
        if metric.kind != "relative":
            continue  # counts: the floor of a count is not a ratio
        for conf in a.configurations:
            x = metric_value(conf, metric.path)
            y = metric_value(mine.get(conf.key), metric.path)
            if x is not None and y is not None and x > 0 and y > 0:
                out.setdefault(metric.key, []).append(math.log(x / y))
    return out


def measure(
    pairs: Sequence[tuple[RunSummary, RunSummary]], names: Sequence[Sequence[str]] = ()
) -> dict[str, Any]:
    """The noise floor of pairs of recordings of the same sweeps (module docstring):
    ``{"recordings": [[a, b], ...], "sigma": {key: s}, "rows": {key: n}, "offset": {key: [per
    pair]}}``. A metric needs at least one more configuration than pairs to have a spread."""
    if not pairs:
        raise AgbenchError("a noise floor needs at least one pair of recordings")
    per_pair = [log_ratios(a, b) for a, b in pairs]
    keys = sorted({k for ratios in per_pair for k in ratios})
    sigma: dict[str, float] = {}
    rows: dict[str, int] = {}
    offset: dict[str, list[float]] = {}
    for key in keys:
        groups = [ratios.get(key, []) for ratios in per_pair]
        used = [g for g in groups if g]
        n = sum(len(g) for g in used)
        if n <= len(used):
            continue
        means = [sum(g) / len(g) if g else 0.0 for g in groups]
        squares = sum((r - m) ** 2 for g, m in zip(groups, means, strict=True) for r in g)
        sigma[key] = math.sqrt(squares / (n - len(used))) / math.sqrt(2.0)
        rows[key] = n
        offset[key] = means
    labels = [list(n) for n in names] or [[a.run_id, b.run_id] for a, b in pairs]
    return {"recordings": labels, "sigma": sigma, "rows": rows, "offset": offset}


def measure_runs(run_dirs: Sequence[Path]) -> dict[str, Any]:
    """:func:`measure` over run directories given as pairs (A B [C D ...]: each the same sweep
    recorded twice), each summarized as ``agbench report`` does."""
    if not run_dirs or len(run_dirs) % 2:
        raise AgbenchError(f"noise-floor takes pairs of run directories, got {len(run_dirs)}")
    summaries = []
    for run_dir in run_dirs:
        store = RunStore.open(run_dir)
        if store.run_meta().is_load:  # no configurations to pair
            raise AgbenchError(f"{run_dir} is a load run; noise-floor pairs agent sweeps")
        summaries.append(summarize(store.tables(), store.meta()))
    pairs = list(zip(summaries[::2], summaries[1::2], strict=True))
    return measure(pairs, [[str(a), str(b)] for a, b in zip(run_dirs[::2], run_dirs[1::2], strict=True)])


def default_floor() -> Path:
    """The shipped floor's installed path (agbench.resources finds it in a wheel or a checkout)."""
    return shipped_dir("noise-floors") / DEFAULT_FLOOR


def write(floor: dict[str, Any], path: Path, source: str) -> Path:
    """``floor`` as a TOML file with the command that measured it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(tomli_w.dumps({"source": source, **floor}))
    return path


def load(path: Path) -> dict[str, Any]:
    """A noise-floor file as ``fit.noise_floor`` carries it (``source``, ``sigma``, ``rows``);
    a file that is not one is a one-line error."""
    if not path.is_file():
        raise AgbenchError(f"noise floor not found: {path}")
    data = load_toml(path)
    sigma = data.get("sigma")
    if not isinstance(sigma, dict) or not all(
        isinstance(v, int | float) and math.isfinite(v) and v >= 0 for v in sigma.values()
    ):
        raise AgbenchError(f"{path}: not a noise floor (no [sigma] table of non-negative numbers)")
    return {
        "source": str(data.get("source", path)),
        "recordings": list(data.get("recordings", [])),
        "sigma": {str(k): float(v) for k, v in sigma.items()},
        "rows": {str(k): int(v) for k, v in (data.get("rows") or {}).items()},
    }


def fit_table(fit: dict[str, Any], entry: str, table: str) -> dict[str, float]:
    """A floor a calibrated profile carries (``fit[entry][table]``: the noise floor's sigmas, the
    held-out error's reaches), its positive figures by dotted key; empty without one."""
    floor = fit.get(entry)
    values = floor.get(table) if isinstance(floor, dict) else None
    if not isinstance(values, dict):
        return {}
    return {
        str(k): float(v)
        for k, v in values.items()
        if isinstance(v, int | float) and math.isfinite(v) and v > 0
    }


def fit_table_source(fit: dict[str, Any], entry: str, table: str) -> str | None:
    """Where that floor was measured (its ``source``); None without one."""
    floor = fit.get(entry)
    if not isinstance(floor, dict) or not fit_table(fit, entry, table):
        return None
    return str(floor.get("source") or "unnamed")


def floor_sigmas(fit: dict[str, Any]) -> dict[str, float]:
    """A calibrated profile's noise floor per figure (dotted key -> sigma); empty without one."""
    return fit_table(fit, "noise_floor", "sigma")


def floor_source(fit: dict[str, Any]) -> str | None:
    """Where a calibrated profile's noise floor was measured (its ``source``); None without one."""
    return fit_table_source(fit, "noise_floor", "sigma")


def widened(
    band: tuple[float, float], point: float | None, sigma: float, reach: float = 0.0
) -> tuple[float, float]:
    """``band`` (p05, p95) made no narrower, on either side of ``point``, than the noise floor's
    90 % half-width (``Z90 * sigma`` in log space), nor than ``reach`` (a log half-width: a
    held-out level's, held_out_error.py). A point that is not positive, or neither floor, leaves
    the band as it is."""
    half = max(Z90 * sigma, reach)
    if half <= 0 or point is None or not math.isfinite(point) or point <= 0:
        return band
    lo, hi = band
    return min(lo, point / math.exp(half)), max(hi, point * math.exp(half))


def floored(
    metrics: dict[str, MetricInterval], sigmas: dict[str, float], reaches: dict[str, float] | None = None
) -> dict[str, MetricInterval]:
    """``agbench sim --draws`` intervals (dotted key -> interval) each widened to its figure's
    floor about the draws' median: the noise floor, and at a held-out level the held-out
    error's ``reaches`` too."""
    out = dict(metrics)
    reaches = reaches or {}
    for key in set(sigmas) | set(reaches):
        iv = out.get(key)
        if iv is not None:
            lo, hi = widened((iv.p05, iv.p95), iv.p50, sigmas.get(key, 0.0), reaches.get(key, 0.0))
            out[key] = iv.model_copy(update={"p05": lo, "p95": hi})
    return out


__all__ = [
    "DEFAULT_FLOOR",
    "Z90",
    "default_floor",
    "fit_table",
    "fit_table_source",
    "floor_sigmas",
    "floor_source",
    "floored",
    "load",
    "log_ratios",
    "measure",
    "measure_runs",
    "widened",
    "write",
]
