"""Where the shipped data is, and where agbench keeps its cache.

Everything agbench reads that is not code ships inside the installed package and is found
through :mod:`importlib.resources`, never by walking up from a source file: the task suite
(``tasks/``, installed as ``agbench.tasks``, with its grading helper and retrieval corpus), the
simulator's scenarios and what-if specs, the trajectory profiles, the agents' prompts and the
HTML reports' templates. A
wheel installed anywhere and a source checkout installed in editable mode answer alike.

The cache (the suites' asset files, and anything else agbench fills once per machine) lives in
the user cache directory: ``$AGBENCH_CACHE``, else ``$XDG_CACHE_HOME/agbench``, else
``~/.cache/agbench``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from agbench.errors import AgbenchError


@dataclass(frozen=True)
class ShippedData:
    """One folder of shipped data: the package that carries it and its path inside it."""

    name: str
    package: str
    subpath: str
    what: str


# The shipped data, by name. Package names are strings so the core imports neither half.
SHIPPED: dict[str, ShippedData] = {
    entry.name: entry
    for entry in (
        ShippedData("tasks", "agbench.tasks", "", "task suite (tasks, grading helper, corpus)"),
        ShippedData("scenarios", "agbench.sim", "scenarios", "simulator scenarios and shared TOMLs"),
        ShippedData("whatif-specs", "agbench.sim", "whatif/specs", "what-if search specs"),
        ShippedData("trajectory-profiles", "agbench.live", "trajectories/profiles", "trajectory profiles"),
        ShippedData("prompts", "agbench.live", "agents/prompts", "agent system prompts"),
        ShippedData("report-templates", "agbench", "report/templates", "HTML report templates"),
        ShippedData("whatif-templates", "agbench.sim", "whatif/templates", "what-if report template"),
        ShippedData(
            "noise-floors",
            "agbench.calibration",
            "noise_floors",
            "noise floors between recordings, held-out error",
        ),
    )
}


def package_dir(package: str) -> Path:
    """The folder of an installed package. agbench installs as plain files (a wheel unpacked in
    site-packages, or an editable install mapping to the checkout), so this is a real folder;
    the task suite is a regular package (``tasks/__init__.py``) so that an editable install
    finds it too."""
    try:
        root = files(package)
    except ModuleNotFoundError:
        raise AgbenchError(f"package {package!r} is not installed") from None
    if not isinstance(root, Path):  # a zip import: agbench never installs so
        raise AgbenchError(f"package {package!r} is not a folder on disk ({root})")
    return root


def shipped_dir(name: str) -> Path:
    """The installed folder of one entry of :data:`SHIPPED`."""
    entry = SHIPPED[name]
    base = package_dir(entry.package)
    return base / entry.subpath if entry.subpath else base


def tasks_dir() -> Path:
    """The task suite that ships with agbench (``$AGBENCH_TASKS`` is applied by the caller)."""
    return shipped_dir("tasks")


def grading_module() -> Path:
    """``agbench_grading.py``, the helper every shipped verifier imports."""
    return tasks_dir() / "_grading" / "agbench_grading.py"


def cache_dir() -> Path:
    """``$AGBENCH_CACHE``, else ``$XDG_CACHE_HOME/agbench``, else ``~/.cache/agbench``."""
    env = os.environ.get("AGBENCH_CACHE")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "agbench"


def assets_dir() -> Path:
    """The suites' asset cache: ``$AGBENCH_ASSETS``, else ``<cache>/assets``."""
    env = os.environ.get("AGBENCH_ASSETS")
    if env:
        return Path(env)
    return cache_dir() / "assets"


__all__ = [
    "SHIPPED",
    "ShippedData",
    "assets_dir",
    "cache_dir",
    "grading_module",
    "package_dir",
    "shipped_dir",
    "tasks_dir",
]
