"""Live and simulated runs speak one vocabulary: the same labels, kinds and statuses.

One replay trajectory set (two short tasks, all four architectures, synthesised from the
oracles with short turns by ``agbench trajectories synth``) is run twice through the public
CLI: live (``agbench sweep --agent replay``: a real llama-server, a second one standing in for
the cloud, real bwrap sandboxes and tools) and simulated (``agbench sim --trajectories``). Both run directories must hold the same set of
(table, column, architecture, value) for every vocabulary column of the trace: who made each
model and tool call, where it went, who sent and received each message and of what kind, how
requests failed, and every attempt's status. A label spelled differently in one half (as the
simulator once wrote ``cloud-consult`` for HLL's consultation, and ``local`` for CO's tool
calls) fails here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from agbench.attempt import AgentLabel, Endpoint, ErrorClass, MessageKind
from agbench.status import Status
from agbench.store import RunStore

pytestmark = [
    pytest.mark.server,
    pytest.mark.slow,
    pytest.mark.bwrap,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed"),
]

ROOT = Path(__file__).resolve().parents[1]
TASKS = ("calc-fuel-consumption", "calc-loan-annuity")  # two-step oracle plans: cheap to replay
ARCHS = "LO,CO,HCL,HLL"
#: Short turns (as tests/live/test_replay.py's): the live half takes about a minute on 2 cores.
TINY_PROFILE = (ROOT / "tests" / "live" / "tiny_profile.toml").read_text()

#: The vocabulary columns of each trace table, and the core enum their values must belong to.
VOCABULARY: dict[tuple[str, str], type] = {
    ("model_calls", "agent"): AgentLabel,
    ("model_calls", "endpoint"): Endpoint,
    ("model_calls", "error_class"): ErrorClass,
    ("tool_calls", "agent"): AgentLabel,
    ("messages", "kind"): MessageKind,
    ("messages", "sender"): AgentLabel,
    ("messages", "receiver"): AgentLabel,
    ("task_runs", "status"): Status,
}


def agbench(*args: str | Path) -> None:
    """The public command line, as a user runs it (the key-less environment: cloud stand-in)."""
    env = {k: v for k, v in os.environ.items() if k != "AGBENCH_CLOUD_API_KEY"}
    command = [str(Path(sys.executable).parent / "agbench"), *map(str, args)]
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, (command, done.stdout[-2000:], done.stderr[-4000:])


def vocabulary(run_dir: Path) -> set[tuple[str, str, str, str]]:
    """Every (table, column, architecture, value) of the vocabulary columns of a run."""
    tables = RunStore.open(run_dir).tables()
    out: set[tuple[str, str, str, str]] = set()
    for (table, column), _ in VOCABULARY.items():
        frame: pd.DataFrame = tables[table]
        for arch, value in zip(frame["architecture"], frame[column].fillna(""), strict=True):
            out.add((table, column, str(arch), str(value)))
    return out


def test_live_and_simulated_replays_record_the_same_vocabulary(tmp_path: Path) -> None:
    profile, trajectories = tmp_path / "tiny.toml", tmp_path / "two-tasks.jsonl"
    profile.write_text(TINY_PROFILE)
    tasks = [arg for task in TASKS for arg in ("--task", task)]
    agbench("trajectories", "synth", "--profile", profile, *tasks, "-o", trajectories)

    live, sim = tmp_path / "live", tmp_path / "sim"
    agbench(
        "sweep", "--agent", "replay", "--trajectories", trajectories, *tasks,
        "--archs", ARCHS, "--concurrency", "1", "--local-ctx", "4096", "--local-threads", "1",
        "--out", live, "--quiet",
    )  # fmt: skip
    agbench(
        "sim", "--scenario", "this-machine-smollm2", "--trajectories", trajectories,
        "--archs", ARCHS, "--concurrency", "1", "--out", sim,
    )  # fmt: skip

    live_words, sim_words = vocabulary(live), vocabulary(sim)
    for table, column, _, value in live_words | sim_words:
        VOCABULARY[(table, column)](value)  # every value is the core's (ValueError otherwise)
    assert live_words == sim_words, {"live only": live_words - sim_words, "sim only": sim_words - live_words}
    # What the comparison covers: each architecture's agents and its coordination.
    assert ("messages", "kind", "HLL", MessageKind.CONSULT) in live_words
    assert ("messages", "receiver", "HCL", AgentLabel.LOCAL_SUB) in live_words
    assert ("model_calls", "agent", "HLL", AgentLabel.CLOUD) in live_words
    assert ("tool_calls", "agent", "CO", AgentLabel.CLOUD) in live_words
    assert {a for t, c, a, v in live_words if c == "status"} == set(ARCHS.split(","))
