"""Execution-time predictors: how long the local server takes, from a roofline or a fit."""

from agbench.sim.predictors.fitted import resolve_rates
from agbench.sim.predictors.roofline import Roofline

__all__ = ["Roofline", "resolve_rates"]
