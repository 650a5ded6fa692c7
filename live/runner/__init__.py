"""Live sweeps: run the task suite under every configuration of device × architecture × C.

``run_sweep(SweepOptions)`` is what ``agbench run`` and ``agbench sweep`` call. The package is
split by job:

- ``options``: the sweep's options, task and agent selection, server settings, validation;
- ``metadata``: what ``run.json`` records (the core's ``RunMeta``);
- ``endpoints``: managed servers (the cloud stand-in among them), the recording proxy, monitors;
- ``attempt``: one attempt (sandbox, agent, verifier) and its ``task_runs`` row;
- ``console``: logging, progress, the summary table, clean stops on Ctrl-C / SIGTERM;
- ``sweep``: the configurations in order, C attempts at once, resume.

A managed server that dies stops the sweep (its broken attempts kept as interrupted) instead
of recording a string of failures that are not the agents'. Ctrl-C and SIGTERM stop cleanly:
attempts in flight are closed as interrupted, sandboxes destroyed, servers stopped, journals
flushed.
"""

from agbench.live.runner.metadata import run_metadata
from agbench.live.runner.options import (
    ServerDied,
    SweepInterrupted,
    SweepOptions,
    default_device_name,
    local_server_settings,
    make_agent,
    select_run_tasks,
    standin_server_settings,
    validate_options,
)
from agbench.live.runner.sweep import Sweep, run_sweep

__all__ = [
    "ServerDied",
    "Sweep",
    "SweepInterrupted",
    "SweepOptions",
    "default_device_name",
    "local_server_settings",
    "make_agent",
    "run_metadata",
    "run_sweep",
    "select_run_tasks",
    "standin_server_settings",
    "validate_options",
]
