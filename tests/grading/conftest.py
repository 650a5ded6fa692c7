"""Import ``agbench_grading`` from tasks/_grading, where it lives (it is no package)."""

from __future__ import annotations

import sys
from pathlib import Path

GRADING_DIR = Path(__file__).resolve().parents[2] / "tasks" / "_grading"
if str(GRADING_DIR) not in sys.path:
    sys.path.insert(0, str(GRADING_DIR))
