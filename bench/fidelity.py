"""How well the simulator predicts live runs it never saw, per set, against the targets.

    .venv/bin/python bench/fidelity.py [RUN_DIR ...] [--set all|development|test|SET_FOLDER] [--fit 1,2]
        [--fit-levels 2] [--server-profile P] [--draws N] [--out DIR] [--all-rows]

The same as ``agbench bench fidelity`` run from the checkout's root (the protocols and sets are
described in ``calibration/fidelity.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from agbench.cli.app import main

if __name__ == "__main__":
    args = sys.argv[1:]
    if "--references" not in args:  # the checkout's, wherever this is run from
        args += ["--references", str(Path(__file__).resolve().parents[1] / "calibration" / "reference")]
    main(["bench", "fidelity", *args])
