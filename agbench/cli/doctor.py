"""``agbench doctor``: what this installation has: its version, where the shipped data and the
cache are, and which optional parts import. It changes nothing and always exits 0, so it is
the first thing to run (and to paste into a bug report) on a new machine.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from importlib.metadata import PackageNotFoundError, version

import click

from agbench.cli.app import main
from agbench.extras import OPTIONAL_PARTS
from agbench.resources import SHIPPED, assets_dir, cache_dir, shipped_dir


def _agbench_version() -> str:
    try:
        return version("agbench")
    except PackageNotFoundError:
        return "unknown (not installed as a distribution)"


def _found(module: str) -> bool:
    """Whether ``module`` can be imported, without importing it (the server wheel and ray are slow)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def doctor_lines() -> list[str]:
    """The report ``agbench doctor`` prints, one fact a line."""
    lines = [
        f"agbench {_agbench_version()} (Python {sys.version.split()[0]}, {sys.executable})",
        "shipped data:",
    ]
    for entry in SHIPPED.values():
        try:
            where = str(shipped_dir(entry.name))
        except Exception as exc:  # doctor reports every problem and never fails
            where = f"MISSING ({exc})"
        lines.append(f"  {entry.name:<20} {where}")
    lines += [f"cache:         {cache_dir()}", f"asset cache:   {assets_dir()}", "optional parts:"]
    for part in OPTIONAL_PARTS:
        if part.module:
            ok, hint = _found(part.module), f"pip install 'agbench[{part.extra}]'"
        else:
            ok, hint = shutil.which(part.binary or "") is not None, part.how
        lines.append(f"  {part.what:<32} {'yes' if ok else f'no   ({hint})'}")
    return lines


@main.command()
def doctor() -> None:
    """Print the version, where the shipped data and the cache are, and which optional parts import."""
    for line in doctor_lines():
        click.echo(line)
