"""The cores this process may run on: its affinity, not the machine's count.

Why one place: the server profile (whether its threads and a twin's overfill the cores), the
runner (whether its managed servers' threads do) and the llama-server child (the mask its
threads are pinned to with ``--cpu-strict``) must count the same cores, and a container or
``taskset`` gives a process fewer than ``os.cpu_count()``.
"""

from __future__ import annotations

import os


def usable_cores() -> list[int]:
    """The indices of the cores this process may run on, ascending."""
    if hasattr(os, "sched_getaffinity"):
        return sorted(os.sched_getaffinity(0))
    return list(range(os.cpu_count() or 1))


def available_cores() -> int:
    """How many cores this process may run on."""
    return len(usable_cores())


__all__ = ["available_cores", "usable_cores"]
