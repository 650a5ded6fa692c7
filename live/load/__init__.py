"""Open-loop load against a real model server (``agbench load``): the server measured alone."""

from agbench.live.load.run import LoadOptions, run_load

__all__ = ["LoadOptions", "run_load"]
