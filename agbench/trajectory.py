"""Trajectories: the decisions of an agent run, replayable against real or simulated servers.

A trajectory is what a replay agent follows for one task under one architecture: an ordered
list of model turns per agent, each sized in tokens (what was added to the history before the
turn, what the model generated) and followed by the tool calls it made, plus delegations (HCL)
and consultations (HLL), and the final answer. The live replay agent sends real requests of
those sizes and executes the tool calls for real; the simulator replays the same file, so live
and simulated replays of one set are directly comparable.

HCL: a delegation's sub-trajectory starts with the turn that reads its instruction; that turn's
``prompt_tokens_added`` is the instruction. A persistent sub-agent (``hcl_sub_agent``, the
default, agbench.hcl_sub_agent) appends it to the history its earlier delegations left, so
later delegations' prompts grow by that history; a fresh one starts it after its system
prompt. One file therefore replays under either behaviour, in both halves.

File format: JSON lines. The first line is a header ``{"trajectory_set": VERSION, "source":
"synth"|"extracted", "profile": {...}}``; every further line is one ``Trajectory``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any

from agbench.errors import AgbenchError
from agbench.schema import Bound, check

TRAJECTORY_VERSION = 1


@dataclass
class ToolStep:
    """A tool call as the agent made it, with the time it took when recorded."""

    tool: str
    arguments: dict[str, Any]
    wall_s: Annotated[float, Bound(ge=0, unit="s")] = 0.0
    cpu_s: Annotated[float, Bound(ge=0, unit="s")] = 0.0
    output_tokens: Annotated[int, Bound(ge=0, unit="tokens")] = (
        0  # size of the tool result fed back into the history
    )


@dataclass
class Turn:
    """One model turn of one agent, then what the agent did with the reply."""

    endpoint: Annotated[str, Bound(choices=("local", "cloud"))]  # "local" | "cloud"
    prompt_tokens_added: Annotated[
        int, Bound(ge=0, unit="tokens")
    ]  # tokens appended to the history since the previous turn
    output_tokens: Annotated[int, Bound(ge=0, unit="tokens")]
    think_s: Annotated[float, Bound(ge=0, unit="s")] = (
        0.0  # harness time between the previous step's end and this request
    )
    tools: list[ToolStep] = field(default_factory=list)
    delegate: Trajectory | None = None  # HCL: the local sub-agent's own trajectory
    consult: Turn | None = None  # HLL: the cloud model's single turn


@dataclass
class Trajectory:
    task: str
    architecture: Annotated[str, Bound(choices=("LO", "CO", "HCL", "HLL"))]  # LO | CO | HCL | HLL
    agent: str  # role of the agent this trajectory drives: "lead" or "sub"
    system_prompt_tokens: Annotated[int, Bound(ge=0, unit="tokens")]
    turns: list[Turn]
    answer: str = ""
    category: str = ""
    recorded_status: str = ""  # status of the run it was extracted from, if any

    @property
    def total_turns(self) -> int:
        """Model turns including those of delegated sub-agents and consultations."""
        n = 0
        for turn in self.turns:
            n += 1
            if turn.delegate is not None:
                n += turn.delegate.total_turns
            if turn.consult is not None:
                n += 1
        return n


def _turn_from(data: dict[str, Any]) -> Turn:
    return Turn(
        endpoint=data["endpoint"],
        prompt_tokens_added=int(data["prompt_tokens_added"]),
        output_tokens=int(data["output_tokens"]),
        think_s=float(data.get("think_s", 0.0)),
        tools=[ToolStep(**t) for t in data.get("tools", [])],
        delegate=trajectory_from_dict(data["delegate"]) if data.get("delegate") else None,
        consult=_turn_from(data["consult"]) if data.get("consult") else None,
    )


def trajectory_from_dict(data: dict[str, Any]) -> Trajectory:
    return Trajectory(
        task=data["task"],
        architecture=data["architecture"],
        agent=data.get("agent", "lead"),
        system_prompt_tokens=int(data.get("system_prompt_tokens", 0)),
        turns=[_turn_from(t) for t in data["turns"]],
        answer=data.get("answer", ""),
        category=data.get("category", ""),
        recorded_status=data.get("recorded_status", ""),
    )


@dataclass
class TrajectorySet:
    source: str  # "synth" | "extracted"
    trajectories: list[Trajectory]
    profile: dict[str, Any] = field(default_factory=dict)

    def get(self, task: str, architecture: str) -> Trajectory | None:
        for t in self.trajectories:
            if t.task == task and t.architecture == architecture:
                return t
        return None

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8") as fh:
            header = {"trajectory_set": TRAJECTORY_VERSION, "source": self.source, "profile": self.profile}
            fh.write(json.dumps(header) + "\n")
            for traj in self.trajectories:
                fh.write(json.dumps(asdict(traj), separators=(",", ":")) + "\n")

    @classmethod
    def load(cls, path: Path) -> TrajectorySet:
        if not path.is_file():
            raise AgbenchError(f"trajectory file not found: {path}")
        lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
        try:
            header = json.loads(lines[0]) if lines else {}
        except json.JSONDecodeError:
            header = {}
        if "trajectory_set" not in header:
            raise AgbenchError(f"{path} is not an agbench trajectory file (no header line)")
        if int(header["trajectory_set"]) > TRAJECTORY_VERSION:
            raise AgbenchError(
                f"{path}: trajectory format {header['trajectory_set']} is newer than this agbench's"
            )
        trajectories = []
        for number, line in enumerate(lines[1:], start=2):
            try:
                trajectory = trajectory_from_dict(json.loads(line))
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                raise AgbenchError(f"{path}:{number}: bad trajectory ({exc})") from None
            check(trajectory, f"{path}:{number}")  # types and ranges (agbench.schema)
            trajectories.append(trajectory)
        return cls(
            source=str(header.get("source", "")), trajectories=trajectories, profile=header.get("profile", {})
        )
