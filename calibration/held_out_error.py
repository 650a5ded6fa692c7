"""The held-out error: how far the simulator has landed from live runs at levels it was not fitted on.

An interval drawn from the calibration data (intervals.py) and widened to the noise floor
between recordings (noise_floor.py) says how much the prediction depends on the data and how
much a recording moves by itself. It says nothing of the model's own misses: a mechanism that
runs eight agents a fifth too slow moves every draw together, so the band stays narrow around a
wrong point. On the development recordings (profile + C = 1, validated with draws), 175 of the
210 held-out timing rows fell inside the bands widened only to the noise floor (83 %), and the
misses were no larger at C = 8 than at C = 2 (root mean square of log(live / sim) 0.12 / 0.12 /
0.09 over the doublings for suite wall): the error is the model's at any level it did not see,
not a growth with distance.

So a band at a held-out level is also made no narrower than what the simulator's track record
says: per figure, the split-conformal 90 % quantile of ``|log(live / sim)|`` over the held-out
rows of validation reports (the ``ceil(0.9 (n + 1))``-th smallest of ``n``), ``sim`` being the
row's point (the draws' median). Measured on recordings the prediction was not scored on, the
quantile holds the live value of a new held-out row in the band nine times in ten, as far as the
new workload behaves like the measured ones. That is an empirical statement about this
simulator on this machine, not physics: it widens bands, never moves a point or a MAPE.

``agbench held-out-error VALIDATION.json [...] -o FILE`` measures it; ``agbench calibrate`` lays
one into the profile (``fit.held_out_error``; by default the one this package ships, measured
on the development recordings, ``noise_floors/held_out_development.toml``), and ``agbench
validate`` and ``agbench sim --draws`` apply it to the configurations whose concurrency the fit
did not see. Fitted levels keep the noise floor alone. ``bench/held_out_coverage.py`` scores the
shipped figure leave-one-set-out on the development recordings.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeGuard

import tomli_w

from agbench.calibration.compared_metrics import METRICS
from agbench.calibration.noise_floor import fit_table, fit_table_source
from agbench.errors import AgbenchError
from agbench.resources import shipped_dir
from agbench.sim.plain_data import load_toml

#: The held-out error this package ships (``noise_floors/held_out_development.toml``).
DEFAULT_FILE = "held_out_development.toml"
#: The share of held-out rows the quantile is meant to hold.
LEVEL = 0.9
#: validation.json's metric name -> the figure's dotted key, for the relative figures.
_KEYS = {m.name: m.key for m in METRICS if m.kind == "relative"}


def held_out_log_errors(report: dict[str, Any]) -> dict[str, list[float]]:
    """Per relative figure (dotted key), ``log(live / sim)`` over a validation report's held-out
    rows where both sides are positive."""
    metrics = report.get("metrics") if isinstance(report, dict) else None
    if not isinstance(metrics, dict):
        raise AgbenchError("not a validation report (no metrics table)")
    out: dict[str, list[float]] = {}
    for name, metric in metrics.items():
        key = _KEYS.get(name)
        if key is None or not isinstance(metric, dict):
            continue
        for row in metric.get("rows") or []:
            live, sim = row.get("live"), row.get("sim")
            if row.get("held_out") and _positive(live) and _positive(sim):
                out.setdefault(key, []).append(math.log(live / sim))
    return out


def _positive(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and math.isfinite(value) and value > 0


def conformal_quantile(values: Sequence[float], level: float = LEVEL) -> float | None:
    """The split-conformal ``level`` quantile of ``|values|``: the ``ceil(level (n + 1))``-th
    smallest; None where ``n`` is too small for one (fewer than nine rows at 90 %)."""
    ordered = sorted(abs(v) for v in values)
    rank = math.ceil(level * (len(ordered) + 1))
    return ordered[rank - 1] if 0 < rank <= len(ordered) else None


def measure(reports: Sequence[dict[str, Any]], names: Sequence[str] = ()) -> dict[str, Any]:
    """The held-out error of validation reports (module docstring): ``{"reports": [...], "level":
    0.9, "reach": {key: log half-width}, "rows": {key: n}}``."""
    if not reports:
        raise AgbenchError("a held-out error needs at least one validation report")
    pooled: dict[str, list[float]] = {}
    for report in reports:
        for key, errors in held_out_log_errors(report).items():
            pooled.setdefault(key, []).extend(errors)
    reach: dict[str, float] = {}
    rows: dict[str, int] = {}
    for key in sorted(pooled):
        q = conformal_quantile(pooled[key])
        if q is not None:
            reach[key], rows[key] = q, len(pooled[key])
    if not reach:
        raise AgbenchError("no figure has enough held-out rows (at least 9) in these reports")
    return {"reports": list(names), "level": LEVEL, "reach": reach, "rows": rows}


def measure_files(paths: Sequence[Path]) -> dict[str, Any]:
    """:func:`measure` over validation.json files (``agbench validate`` with ``--draws``)."""
    reports = []
    for path in paths:
        if not path.is_file():
            raise AgbenchError(f"validation report not found: {path}")
        try:
            report = json.loads(path.read_text())
            held_out_log_errors(report)
        except json.JSONDecodeError as err:
            raise AgbenchError(f"{path}: not a validation report ({err.msg})") from None
        except AgbenchError as err:
            raise AgbenchError(f"{path}: {err}") from None
        reports.append(report)
    return measure(reports, [str(p) for p in paths])


def write(measured: dict[str, Any], path: Path, source: str) -> Path:
    """``measured`` as a TOML file with the command that measured it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(tomli_w.dumps({"source": source, **measured}))
    return path


def default_file() -> Path:
    """The shipped held-out error's installed path."""
    return shipped_dir("noise-floors") / DEFAULT_FILE


def load(path: Path) -> dict[str, Any]:
    """A held-out-error file as ``fit.held_out_error`` carries it; a file that is not one is a
    one-line error."""
    if not path.is_file():
        raise AgbenchError(f"held-out error not found: {path}")
    data = load_toml(path)
    reach = data.get("reach")
    if not isinstance(reach, dict) or not all(
        isinstance(v, int | float) and math.isfinite(v) and v >= 0 for v in reach.values()
    ):
        raise AgbenchError(f"{path}: not a held-out error (no [reach] table of non-negative numbers)")
    return {
        "source": str(data.get("source", path)),
        "level": float(data.get("level", LEVEL)),
        "reach": {str(k): float(v) for k, v in reach.items()},
        "rows": {str(k): int(v) for k, v in (data.get("rows") or {}).items()},
    }


def held_out_reach(fit: dict[str, Any]) -> dict[str, float]:
    """A calibrated profile's held-out error per figure (dotted key -> log half-width); empty
    without one."""
    return fit_table(fit, "held_out_error", "reach")


def held_out_source(fit: dict[str, Any]) -> str | None:
    """Where a calibrated profile's held-out error was measured; None without one."""
    return fit_table_source(fit, "held_out_error", "reach")


__all__ = [
    "DEFAULT_FILE",
    "LEVEL",
    "conformal_quantile",
    "default_file",
    "held_out_log_errors",
    "held_out_reach",
    "held_out_source",
    "load",
    "measure",
    "measure_files",
    "write",
]
