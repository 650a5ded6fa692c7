"""A suite's assets inside its sandboxes: the suite's own cache folder, read-only, at
``/benchmark/assets`` (the path external harness containers see too).

``registry.plan_suite`` records the folder on each task of a suite that declares assets (after
they passed their checks); a task without one gets no mount, so a sandbox never sees another
suite's files. bubblewrap cannot create a mount point in its read-only root, so the base and
exported root filesystems carry an empty ``/benchmark`` (``images.MOUNT_POINTS``) and the
sandbox puts a tmpfs there to hold the ``assets`` mount point.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agbench.task import Task

ASSETS_MOUNT = "/benchmark/assets"
ASSETS_KEY = "assets_dir"  # task metadata: the host folder of the task's suite's assets


def suite_assets(task: Task) -> Path | None:
    value = task.metadata.get(ASSETS_KEY)
    if not value:
        return None
    path = Path(str(value))
    return path if path.is_dir() else None


def with_assets(config: dict[str, Any], task: Task) -> dict[str, Any]:
    """Docker container settings plus the read-only assets bind, when the task has assets."""
    assets = suite_assets(task)
    if assets is None:
        return config
    volumes = dict(config.get("volumes", {}))
    volumes[str(assets.resolve())] = {"bind": ASSETS_MOUNT, "mode": "ro"}
    return {**config, "volumes": volumes}


def bwrap_asset_args(task: Task) -> list[str]:
    """bubblewrap arguments for the read-only assets mount (none without assets)."""
    assets = suite_assets(task)
    if assets is None:
        return []
    return ["--tmpfs", str(Path(ASSETS_MOUNT).parent), "--ro-bind", str(assets.resolve()), ASSETS_MOUNT]


__all__ = ["ASSETS_KEY", "ASSETS_MOUNT", "bwrap_asset_args", "suite_assets", "with_assets"]
