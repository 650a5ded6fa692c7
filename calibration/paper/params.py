"""The paper fit's tuned behaviour parameters, and the synthetic workload a set of them builds.

Stage 2 of the fit (``fit.py``): ``PARAMS`` names each tuned value with its start, range and
meaning; ``build_params`` lays a candidate's values (and, at the end, the chosen per-category
success probabilities) over the prior workload.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from agbench.architecture_roles import plan_for
from agbench.calibration.paper.targets import ARCHS
from agbench.config import Architecture
from agbench.sim.scenario import SCENARIO_DIR
from agbench.sim.workloads.synthetic import ArchParams, CategoryParams, SyntheticParams

PRIOR = SCENARIO_DIR / "shared" / "workload-paper.toml"  # the simulator's starting points (read only)
SEED = 0  # the paper scenarios' seed: task order and the synthetic draws


@dataclass(frozen=True)
class FitParam:
    """One tuned parameter: its start (the prior's value), range, transform and meaning."""

    name: str
    start: float
    low: float
    high: float
    why: str
    logit: bool = False  # probabilities: fitted on the logit scale; others on the log scale

    def to_x(self, value: float) -> float:
        v = min(max(value, self.low), self.high)
        return math.log(v / (1 - v)) if self.logit else math.log(v)

    def from_x(self, x: float) -> float:
        v = 1 / (1 + math.exp(-x)) if self.logit else math.exp(x)
        return min(max(v, self.low), self.high)


PARAMS: tuple[FitParam, ...] = (
    # Starting points: the simulator's priors (shared/workload-paper.toml) moved by earlier
    # runs of this fit, last to the values it shipped (shared/paper-workload.toml's header);
    # the fit is deterministic from them.
    FitParam("tool_wall_median_s", 5.035, 0.3, 120.0, "median tool wall time, cloud-led agents (CO, HCL)"),
    FitParam("tool_factor_LO", 2.526, 0.1, 50.0, "LO's tool time relative to the cloud agents'"),
    FitParam("tool_factor_HLL", 1.908, 0.1, 50.0, "HLL's tool time relative to the cloud agents'"),
    FitParam("tool_sigma_LO", 1.145, 0.3, 3.0, "lognormal shape of LO's tool times (commands that hang)"),
    FitParam("result_factor_LO", 0.8838, 0.1, 5.0, "LO's tool-result tokens relative to the others'"),
    FitParam("tool_wall_sigma", 1.349, 0.3, 2.5, "lognormal shape of tool wall time"),
    FitParam("tool_result_tokens_median", 518.9, 100.0, 6000.0, "median tool-result tokens"),
    FitParam("local_output_tokens", 689.7, 100.0, 4000.0, "median local output per turn (LO, HLL)"),
    FitParam("cloud_output_tokens", 591.7, 100.0, 6000.0, "median CO output per turn"),
    FitParam("hcl_output_tokens", 621.8, 100.0, 6000.0, "median HCL lead/sub output per turn"),
    FitParam("turns_sigma_LO", 1.379, 0.1, 2.0, "lognormal shape of LO's turns per task"),
    FitParam("turns_sigma_CO", 0.7174, 0.1, 2.0, "lognormal shape of CO's turns per task"),
    FitParam("turns_sigma_HCL", 0.5016, 0.1, 2.0, "lognormal shape of HCL's lead/sub turns"),
    FitParam("turns_sigma_HLL", 0.8408, 0.1, 2.0, "lognormal shape of HLL's turns per task"),
    FitParam("turns_LO", 7.525, 2.0, 150.0, "median model turns of the LO agent"),
    FitParam("turns_CO", 4.266, 1.0, 150.0, "median model turns of the CO agent"),
    FitParam("turns_HCL", 9.983, 1.0, 150.0, "median model turns of HCL's cloud lead"),
    FitParam("turns_HLL", 13.64, 2.0, 150.0, "median model turns of HLL's local lead"),
    FitParam("sub_turns_HCL", 7.394, 1.0, 150.0, "median turns of one HCL local sub-agent"),
    FitParam("delegate_p", 0.4063, 0.02, 0.98, "P(an HCL lead turn delegates)", logit=True),
    FitParam("consult_p", 0.2677, 0.01, 0.9, "P(an HLL lead turn consults the cloud)", logit=True),
    FitParam("hard_turns", 1.217, 0.05, 1000.0, "turns x this^difficulty on hard categories"),
    FitParam("hard_tools", 20.12, 0.05, 1000.0, "tool time x this^difficulty on hard categories"),
    FitParam("consult_output_tokens", 2080, 50.0, 20000.0, "cloud output of one HLL consultation"),
)
# hard_* enter as log(value) x difficulty: the log scale keeps them positive (harder
# categories are never shorter), and 1.0 is "no category effect".


def values_of(x: Iterable[float]) -> dict[str, float]:
    return {p.name: p.from_x(v) for p, v in zip(PARAMS, x, strict=True)}


def start_values() -> dict[str, float]:
    return {p.name: p.start for p in PARAMS}


def build_params(
    v: dict[str, float],
    prior: SyntheticParams,
    difficulty: dict[str, float],
    success: dict[tuple[str, str], float] | None = None,
) -> SyntheticParams:
    """The prior's workload with the fitted values set (``success`` None: everything solvable)."""
    cats: dict[str, CategoryParams] = {}
    for name, cp in prior.categories.items():
        d = difficulty[name]
        cats[name] = replace(
            cp,
            turns_scale=round(cp.turns_scale * v["hard_turns"] ** d, 4),
            tool_wall_scale=round(cp.tool_wall_scale * v["hard_tools"] ** d, 4),
            success_p={a: (success[(name, a)] if success else 1.0) for a in ARCHS},
        )
    archs: dict[str, ArchParams] = {}
    shared: dict[str, Any] = {
        "tool_wall_median_s": round(v["tool_wall_median_s"], 3),
        "tool_result_tokens_median": round(v["tool_result_tokens_median"], 1),
        "tool_wall_sigma": round(v["tool_wall_sigma"], 4),
        "success_p": 1.0,
    }
    for arch in ARCHS:
        architecture = Architecture(arch)
        leads_locally = plan_for(architecture).leads_locally
        a = replace(prior.archs[arch], **shared)
        if leads_locally:
            a.tool_wall_median_s = round(v["tool_wall_median_s"] * v[f"tool_factor_{arch}"], 3)
        a.turns_sigma = round(v[f"turns_sigma_{arch}"], 4)
        if architecture is Architecture.LO:
            a.tool_wall_sigma = round(v["tool_sigma_LO"], 4)
            a.tool_result_tokens_median = round(v["tool_result_tokens_median"] * v["result_factor_LO"], 1)
        a.turns_median = round(v[f"turns_{arch}"], 3)
        if leads_locally:
            a.output_tokens_median = round(v["local_output_tokens"], 1)
        elif architecture is Architecture.CO:
            a.output_tokens_median = round(v["cloud_output_tokens"], 1)
        else:
            a.output_tokens_median = round(v["hcl_output_tokens"], 1)
            a.sub_turns_median = round(v["sub_turns_HCL"], 3)
            a.delegate_p = round(v["delegate_p"], 4)
        if architecture is Architecture.HLL:
            a.consult_p = round(v["consult_p"], 4)
            a.consult_output_tokens = int(v["consult_output_tokens"])
        archs[arch] = a
    return SyntheticParams("paper-60-fitted", list(prior.difficulty_levels), cats, archs)


__all__ = ["PARAMS", "PRIOR", "SEED", "FitParam", "build_params", "start_values", "values_of"]
