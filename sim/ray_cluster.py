"""Joining Ray for the simulator's fan-out (``--ray local`` or ``--ray ADDRESS``).

Sweeps and what-if searches both hand their chunks to Ray the same way: Ray is an optional
extra, so a missing install is a one-line error naming the way back to local processes, and
a process that already joined a cluster keeps it rather than joining a second one.
"""

from __future__ import annotations

from types import ModuleType

from agbench.errors import AgbenchError


def connect(address: str) -> ModuleType:
    """The ``ray`` module, initialised once: a fresh local cluster for ``"local"``, else ``address``."""
    try:
        import ray
    except ImportError:
        raise AgbenchError(
            "--ray needs Ray: pip install 'agbench[ray]' (or drop --ray to use local processes)"
        ) from None
    if not ray.is_initialized():
        if address == "local":
            ray.init(include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    return ray
