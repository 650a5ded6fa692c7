"""The ``agbench`` command line: one module per command group, all registered on one click group.

Each command parses its options, then calls one public function of the package that does the
work; heavy imports happen inside the command so ``agbench --help`` stays fast and a missing
optional part fails only the command that needs it. This is the one core package allowed to
import ``agbench.live``, ``agbench.sim`` and ``agbench.calibration``.
"""

from __future__ import annotations

from agbench.cli import (
    bench,
    calibration,
    doctor,
    load,
    paper,
    profiling,
    runs,
    schemas,
    serving,
    simulate,
    tasks,
    trajectories,
)
from agbench.cli.app import main

__all__ = [
    "bench",
    "calibration",
    "doctor",
    "load",
    "main",
    "paper",
    "profiling",
    "runs",
    "schemas",
    "serving",
    "simulate",
    "tasks",
    "trajectories",
]
