"""Bad input gets a one-line error and a non-zero exit, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def _agbench(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agbench.cli", *args], capture_output=True, text=True, timeout=120, cwd=cwd
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["report", "/nonexistent/run"], "run directory not found"),
        (["run", "--arch", "XX", "--concurrency", "1"], "unknown architecture"),
        (["sweep", "--concurrency", "1,zero"], "positive integer"),
        (["tasks", "list", "--category", "cooking"], "unknown category"),
    ],
)
def test_bad_input_is_one_line(args: list[str], message: str) -> None:
    result = _agbench(*args)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, result.stderr
    assert message in lines[0]


def test_report_of_a_directory_that_is_not_a_run(tmp_path: Path) -> None:
    result = _agbench("report", str(tmp_path))
    assert result.returncode == 2
    assert "not an agbench run directory" in result.stderr
    assert "Traceback" not in result.stderr
