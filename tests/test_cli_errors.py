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


def test_an_output_path_of_the_wrong_kind_is_refused_before_the_work(tmp_path: Path) -> None:
    """A folder where a file is written, or a file where a folder is, is one line, checked
    before the fit or the simulations rather than after them; whatever the OS refuses is one
    line too."""
    run = Path(__file__).parents[1] / "calibration" / "reference" / "run"
    result = _agbench("calibrate", str(run), "--fit-concurrency", "1", "-o", str(tmp_path))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"agbench: error: -o {tmp_path} is a folder; name the profile file (e.g. {tmp_path / 'profile.toml'})"
    ]
    profile, taken = tmp_path / "p.toml", tmp_path / "taken"
    assert _agbench("calibrate", str(run), "--fit-concurrency", "1", "-o", str(profile)).returncode == 0
    taken.write_text("")
    result = _agbench("validate", "--calibration", str(profile), str(run), "--out", str(taken))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"agbench: error: --out {taken} is a file; validation.json goes into a folder"
    ]
    result = _agbench("calibrate", str(run), "--fit-concurrency", "1", "-o", str(taken / "p.toml"))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [f"agbench: error: [Errno 17] File exists: '{taken}'"]
