"""agbench.calibration: fit the simulator from live traces, and check it on runs it never saw.

``calibrate(run_dirs, output)`` writes a profile overlay (TOML) for ``agbench.sim``;
``validate(profile, run_dirs, out)`` simulates the same tasks, architectures and concurrency
as each live run and writes ``validation.json`` with per-metric errors.
"""

from agbench.calibration.calibrate import calibrate, fit_profile
from agbench.calibration.validation import validate

__all__ = ["calibrate", "fit_profile", "validate"]
