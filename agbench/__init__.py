"""agbench: measure agentic AI on personal AI devices, and simulate what was not measured.

The core package holds what both halves share: configurations, the task model, the trace
schema and run store, metrics and reports. ``agbench.live``, ``agbench.sim`` and
``agbench.calibration`` live in top-level folders and depend on this core, never the reverse
(except ``agbench.cli``, which wires commands to them).
"""

__version__ = "0.1.0"
