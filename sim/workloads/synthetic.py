"""Synthetic workload: trajectories drawn from per-category, per-architecture distributions.

The parameters are a plain dataclass tree with a TOML form (``SyntheticParams.load/save``), so
calibration scripts can tune them (calibration/paper fits them to the paper's concurrency-1 figures)
and scenarios can ship them. Defaults are shaped like the paper's 60-task suite with a 27B
reasoning model: see ``sim/scenarios/workload-paper.toml`` for the values with reasoning.

Generation is deterministic in the seed. A task's *latent difficulty* ``u`` is shared by all
architectures, and an architecture solves the task when ``u < success_p``: the tasks a weaker
architecture solves are mostly a subset of a stronger one's, as in the paper, which keeps the
"solved by all architectures" set of the completion-time metric non-empty.

Token accounting follows ``agbench.trajectory``: before turn k the history is the previous
request's prompt plus that turn's output plus ``prompt_tokens_added`` of turn k (tool
results, consultation answers, delegation reports, the instruction on turn 0).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w

from agbench.architecture_roles import plan_for
from agbench.attempt import Endpoint
from agbench.config import Architecture
from agbench.errors import AgbenchError
from agbench.sim.plain_data import from_plain, load_toml, to_plain
from agbench.sim.workloads.base import SimTask, Workload
from agbench.status import Status
from agbench.trajectory import ToolStep, Trajectory, TrajectorySet, Turn

ARCHS = tuple(a.value for a in Architecture)


@dataclass
class ArchParams:
    """How an agent of one architecture behaves (medians and lognormal shapes)."""

    success_p: float = 0.7  # intrinsic: would the run succeed if nothing intervened
    turns_median: float = 15.0  # lead agent's model turns
    turns_sigma: float = 0.6
    system_prompt_tokens: int = 2500
    instruction_tokens: int = 400
    output_tokens_median: float = 500.0
    output_tokens_sigma: float = 0.8
    tool_result_tokens_median: float = 600.0  # per tool call, added to the next prompt
    tool_result_tokens_sigma: float = 1.0
    tools_per_turn: float = 1.0  # mean tool calls per turn (turns but the last)
    tool_wall_median_s: float = 1.5
    tool_wall_sigma: float = 1.2
    tool_cpu_fraction: float = 0.5  # cpu_s / wall_s
    think_s: float = 0.2  # harness time before each request
    # HCL: each lead turn delegates with this probability to a local sub-agent
    delegate_p: float = 0.0
    sub_turns_median: float = 8.0
    sub_system_prompt_tokens: int = 2000
    delegate_instruction_tokens: int = 300
    delegate_report_tokens: int = 400
    # HLL: each lead turn consults the cloud with this probability
    consult_p: float = 0.0
    consult_prompt_tokens: int = 3000
    consult_output_tokens: int = 800


@dataclass
class CategoryParams:
    """One category: how many tasks and how it differs from the architecture defaults."""

    count: int = 0
    turns_scale: float = 1.0
    tool_result_scale: float = 1.0
    tool_wall_scale: float = 1.0
    output_scale: float = 1.0
    sensitive_items: int = 2
    success_p: dict[str, float] = field(default_factory=dict)  # per architecture; overrides ArchParams


def _default_categories() -> dict[str, CategoryParams]:
    # The paper names 60 tasks in eight categories and gives counts for four of them (local
    # files 12, retrieval 10, calculation 8, system 2, terminal 12 from its per-category
    # success figures); office/multimedia/scientific share the remaining 16 (assumed 6/5/5).
    return {
        "local_files": CategoryParams(12, success_p={"LO": 0.8, "CO": 0.9, "HCL": 0.75, "HLL": 0.85}),
        "retrieval": CategoryParams(10, tool_result_scale=1.5, success_p={"LO": 0.75, "CO": 0.9}),
        "calculation": CategoryParams(8, turns_scale=0.8, success_p={"LO": 0.7}),
        "office": CategoryParams(6, tool_result_scale=1.3),
        "multimedia": CategoryParams(5, tool_wall_scale=3.0),
        "scientific": CategoryParams(5, tool_wall_scale=2.0, output_scale=1.3),
        "system": CategoryParams(2, turns_scale=0.7, success_p={"LO": 0.95}),
        "terminal": CategoryParams(
            12,
            turns_scale=1.4,
            tool_wall_scale=2.0,
            success_p={"LO": 0.4, "CO": 0.92, "HCL": 0.65, "HLL": 0.75},
        ),
    }


def _default_archs() -> dict[str, ArchParams]:
    return {
        "LO": ArchParams(success_p=0.65, turns_median=18),
        "CO": ArchParams(success_p=0.85, turns_median=12, output_tokens_median=600),
        "HCL": ArchParams(success_p=0.7, turns_median=11, output_tokens_median=500, delegate_p=0.35),
        "HLL": ArchParams(success_p=0.75, turns_median=17, consult_p=0.12),
    }


@dataclass
class SyntheticParams:
    name: str = "paper-60"
    difficulty_levels: list[str] = field(default_factory=lambda: ["easy", "medium", "hard"])
    categories: dict[str, CategoryParams] = field(default_factory=_default_categories)
    archs: dict[str, ArchParams] = field(default_factory=_default_archs)

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "workload") -> SyntheticParams:
        """Layered over the defaults: a table names only what differs."""
        base = cls()
        unknown = sorted(
            set(data) - {"name", "difficulty_levels", "inherit_categories", "categories", "archs"}
        )
        if unknown:
            raise AgbenchError(f"{where}: unknown key(s) {', '.join(unknown)}")
        name = str(data.get("name", base.name))
        levels = list(data.get("difficulty_levels", base.difficulty_levels))
        cats = dict(base.categories) if data.get("inherit_categories", True) else {}
        for key, table in data.get("categories", {}).items():
            merged = {**to_plain(cats[key]), **table} if key in cats else table
            cats[key] = from_plain(CategoryParams, merged, f"{where}.categories.{key}")
        archs = dict(base.archs)
        for key, table in data.get("archs", {}).items():
            merged = {**to_plain(archs[key]), **table} if key in archs else table
            archs[key] = from_plain(ArchParams, merged, f"{where}.archs.{key}")
        return cls(name, levels, cats, archs)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = to_plain(self)
        out["inherit_categories"] = False
        return out

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(tomli_w.dumps(self.to_dict()))

    @classmethod
    def load(cls, path: Path) -> SyntheticParams:
        return cls.from_dict(load_toml(path), str(path))

    def success_p(self, category: str, arch: str) -> float:
        return self.categories[category].success_p.get(arch, self.archs[arch].success_p)


def _lognormal(rng: random.Random, median: float, sigma: float) -> float:
    return median * math.exp(sigma * rng.gauss(0.0, 1.0)) if median > 0 else 0.0


def _count(rng: random.Random, mean: float) -> int:
    """A whole number with the given mean: floor plus a Bernoulli of the remainder."""
    whole = int(mean)
    return whole + (1 if rng.random() < mean - whole else 0)


def _tools(rng: random.Random, a: ArchParams, c: CategoryParams) -> list[ToolStep]:
    steps = []
    for _ in range(_count(rng, a.tools_per_turn)):
        wall = _lognormal(rng, a.tool_wall_median_s * c.tool_wall_scale, a.tool_wall_sigma)
        out = max(
            1,
            int(
                _lognormal(rng, a.tool_result_tokens_median * c.tool_result_scale, a.tool_result_tokens_sigma)
            ),
        )
        steps.append(ToolStep("tool", {}, wall_s=wall, cpu_s=wall * a.tool_cpu_fraction, output_tokens=out))
    return steps


def _agent_turns(
    rng: random.Random, a: ArchParams, c: CategoryParams, endpoint: str, n: int, first_added: int
) -> list[Turn]:
    turns: list[Turn] = []
    added = first_added
    for k in range(n):
        out = max(1, int(_lognormal(rng, a.output_tokens_median * c.output_scale, a.output_tokens_sigma)))
        tools = _tools(rng, a, c) if k < n - 1 else []
        turns.append(Turn(endpoint, added, out, think_s=a.think_s, tools=tools))
        added = sum(t.output_tokens for t in tools)
    return turns


def _trajectory(params: SyntheticParams, task: SimTask, arch: str, seed: int, solved: bool) -> Trajectory:
    a, c = params.archs[arch], params.categories[task.category]
    rng = random.Random(f"{seed}|{task.task}|{arch}")
    n = max(1, round(_lognormal(rng, a.turns_median * c.turns_scale, a.turns_sigma)))
    plan = plan_for(arch)
    turns = _agent_turns(rng, a, c, plan.lead.endpoint.value, n, a.instruction_tokens)
    for k, turn in enumerate(turns):
        last = k == len(turns) - 1
        if plan.delegates and not last and rng.random() < a.delegate_p:
            m = max(1, round(_lognormal(rng, a.sub_turns_median * c.turns_scale, a.turns_sigma)))
            sub = _agent_turns(rng, a, c, Endpoint.LOCAL.value, m, a.delegate_instruction_tokens)
            sub[-1].output_tokens = a.delegate_report_tokens
            turn.tools = []
            turn.delegate = Trajectory(
                task.task, arch, "sub", a.sub_system_prompt_tokens, sub, category=task.category
            )
            turns[k + 1].prompt_tokens_added = a.delegate_report_tokens
        elif plan.consults and not last and rng.random() < a.consult_p:
            turn.consult = Turn(
                Endpoint.CLOUD.value, a.consult_prompt_tokens, a.consult_output_tokens, think_s=a.think_s
            )
            turns[k + 1].prompt_tokens_added += a.consult_output_tokens
    status = (Status.SUCCESS if solved else Status.VERIFICATION_FAILED).value
    return Trajectory(
        task.task, arch, "lead", a.system_prompt_tokens, turns, category=task.category, recorded_status=status
    )


def synthetic_tasks(params: SyntheticParams) -> list[SimTask]:
    tasks = []
    for category, cp in params.categories.items():
        for i in range(cp.count):
            level = (
                params.difficulty_levels[i % len(params.difficulty_levels)]
                if params.difficulty_levels
                else ""
            )
            tasks.append(SimTask(f"{category}-{i + 1:02d}", category, level, cp.sensitive_items))
    return tasks


def synthetic_workload(params: SyntheticParams, seed: int = 0, archs: tuple[str, ...] = ARCHS) -> Workload:
    tasks = synthetic_tasks(params)
    trajectories = []
    for task in tasks:
        u = random.Random(f"{seed}|{task.task}|latent").random()
        for arch in archs:
            if arch in params.archs:
                solved = u < params.success_p(task.category, arch)
                trajectories.append(_trajectory(params, task, arch, seed, solved))
    return Workload(
        "synthetic", tasks, TrajectorySet("synth", trajectories, {"synthetic": params.name, "seed": seed})
    )


__all__ = [
    "ARCHS",
    "ArchParams",
    "CategoryParams",
    "SyntheticParams",
    "synthetic_tasks",
    "synthetic_workload",
]
