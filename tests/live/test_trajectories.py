"""Trajectory sources: token profiles, synthesis from the suite's oracles, extraction from runs.

Synthesis is checked on the real task suite (plans, oracle answers run in real bubblewrap
sandboxes) and against the sizing rule the default profile promises; extraction on a run
directory written through the real RunStore (the end-to-end extract-and-replay check, with a
real server, is in test_replay.py).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from agbench.errors import AgbenchError
from agbench.live.trajectories import extract, load_profile, shipped_profiles, synthesize
from agbench.live.trajectories.synth import load_plan
from agbench.records import Message, ModelCall, TaskRun, ToolCall
from agbench.store import AttemptKey, RunStore
from agbench.task import Task, load_suite, load_task
from agbench.trajectory import Trajectory, TrajectorySet

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")


@pytest.fixture(scope="module")
def suite() -> list[Task]:
    return load_suite()


def peak_history(traj: Trajectory) -> int:
    """The most tokens one request of this agent holds (prompt + output)."""
    total, peak = traj.system_prompt_tokens, 0
    for turn in traj.turns:
        total += turn.prompt_tokens_added
        peak = max(peak, total + turn.output_tokens)
        total += turn.output_tokens
    return peak


def local_peaks(traj: Trajectory) -> list[int]:
    """Peaks of the agents of this trajectory that run on the local server."""
    out = [peak_history(traj)] if traj.turns and traj.turns[0].endpoint == "local" else []
    for turn in traj.turns:
        if turn.delegate is not None:
            out += local_peaks(turn.delegate)
    return out


# ---- profiles ---------------------------------------------------------------------------------
def test_shipped_profiles_load_and_differ_in_scale() -> None:
    assert {"this-machine", "paper-27b"} <= set(shipped_profiles())
    small, big = load_profile(), load_profile("paper-27b")
    assert small.name == "this-machine"
    assert big.defaults.tool_result_tokens >= 10 * small.defaults.tool_result_tokens
    assert big.for_category("terminal").exploration_turns > 0
    assert small.for_category("retrieval").tool_result_tokens > small.defaults.tool_result_tokens
    assert small.for_category("calculation") == small.defaults  # no override: the defaults


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nme = 'x'", "unknown key"),
        ("[defaults]\noutput_token = 3", "unknown key 'output_token'"),
        ("[defaults]\noutput_tokens = -3", "must not be negative"),
        ("[defaults]\noutput_tokens = 2.5", "whole number"),
        ("[defaults]\noutput_tokens = 'many'", "expected a number"),
        ("[defaults]\noutput_tokens = 0", "at least 1"),
        ("[categories.cooking]\noutput_tokens = 3", "unknown category 'cooking'"),
        ("jitter = 1.5", "jitter"),
        ("[hybrid]\ndelegations = 0", "delegations"),
        ("[defaults\n", "not valid TOML"),
    ],
)
def test_bad_profiles_are_one_line_errors(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(AgbenchError, match=message) as info:
        load_profile(path)
    assert "\n" not in str(info.value)
    assert "bad.toml" in str(info.value)


def test_missing_profile_names_the_shipped_ones(tmp_path: Path) -> None:
    with pytest.raises(AgbenchError, match=r"profile not found.*this-machine"):
        load_profile(tmp_path / "nope.toml")


# ---- synthesis --------------------------------------------------------------------------------
def test_synthesis_follows_each_oracle_plan_per_architecture(suite: list[Task]) -> None:
    tasks = suite[:4]
    answers = {t.id: f"answer of {t.id}" for t in tasks}
    ts = synthesize(tasks, answers=answers, seed=3)
    assert ts.source == "synth"
    assert ts.profile["name"] == "this-machine"
    assert ts.profile["seed"] == 3
    assert len(ts.trajectories) == 4 * len(tasks)
    for task in tasks:
        plan = [(name, args) for name, args in load_plan(task)]
        assert all("@solve.py" not in json.dumps(args) for _, args in plan)  # resolved to the code
        lo, co, hcl, hll = (ts.get(task.id, a) for a in ("LO", "CO", "HCL", "HLL"))
        assert lo
        assert co
        assert hcl
        assert hll
        for traj, endpoint in ((lo, "local"), (co, "cloud")):
            assert [(s.tool, s.arguments) for t in traj.turns for s in t.tools] == plan
            assert {t.endpoint for t in traj.turns} == {endpoint}
            assert traj.answer == answers[task.id]
            assert traj.category == task.category
            assert not traj.turns[-1].tools  # the closing turn answers
        # LO and CO are the same agent on another endpoint: same sizes step for step.
        assert [(t.prompt_tokens_added, t.output_tokens) for t in lo.turns] == [
            (t.prompt_tokens_added, t.output_tokens) for t in co.turns
        ]
        # HCL: the cloud lead delegates the whole plan to local sub-agents.
        assert {t.endpoint for t in hcl.turns} == {"cloud"}
        assert not any(t.tools for t in hcl.turns)
        subs = [t.delegate for t in hcl.turns if t.delegate is not None]
        assert subs
        assert all(s.agent == "sub" and {t.endpoint for t in s.turns} == {"local"} for s in subs)
        assert [(st.tool, st.arguments) for s in subs for t in s.turns for st in t.tools] == plan
        # HLL: the local lead does the plan and consults the cloud once, before its last steps.
        consults = [t.consult for t in hll.turns if t.consult is not None]
        assert len(consults) == 1
        assert consults[0].endpoint == "cloud"
        assert [(s.tool, s.arguments) for t in hll.turns for s in t.tools] == plan
        assert hll.total_turns == lo.total_turns + 2


def test_synthesis_is_reproducible_per_seed(suite: list[Task], tmp_path: Path) -> None:
    tasks = suite[:3]
    answers = {t.id: "x" for t in tasks}
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    synthesize(tasks, answers=answers, seed=1).save(a)
    synthesize(tasks, answers=answers, seed=1).save(b)
    assert a.read_bytes() == b.read_bytes()
    other = synthesize(tasks, answers=answers, seed=2)

    def sizes(ts: TrajectorySet) -> list[int]:
        return [t.output_tokens for tr in ts.trajectories for t in tr.turns]

    assert sizes(TrajectorySet.load(a)) != sizes(other)
    loaded = TrajectorySet.load(a)
    assert loaded.source == "synth"
    assert loaded.profile["seed"] == 1


def test_this_machine_profile_fits_one_task_and_eight_exhaust_4096(suite: list[Task]) -> None:
    """The default profile's promise: on a 4,096-token pool every task fits alone (C = 1, with
    room to spare) and any eight tasks at their peaks do not fit together (C = 8)."""
    ts = synthesize(suite, answers={t.id: "x" for t in suite})
    for arch in ("LO", "HLL", "HCL"):
        peaks = sorted(p for t in ts.trajectories if t.architecture == arch for p in local_peaks(t))
        assert peaks[-1] <= 3000, (arch, peaks[-1])
        assert sum(peaks[:8]) > 4096 * 1.25, (arch, peaks[:8])


def test_paper_profile_is_long_context(suite: list[Task]) -> None:
    ts = synthesize(suite, "paper-27b", answers={t.id: "x" for t in suite})
    peaks = [peak_history(t) for t in ts.trajectories if t.architecture == "LO"]
    assert min(peaks) > 15_000
    assert max(peaks) < 65_536
    lo = ts.trajectories[0]
    assert all(t.output_tokens >= 400 for t in lo.turns)


@pytest.mark.bwrap
@needs_bwrap
def test_synthesis_runs_each_oracle_in_a_sandbox(suite: list[Task], tmp_path: Path) -> None:
    good = suite[0]
    broken_root = tmp_path / "broken"
    shutil.copytree(good.path, broken_root)
    (broken_root / "solution" / "solve.py").write_text("raise SystemExit('no luck')\n")
    manifest = broken_root / "task.toml"
    manifest.write_text(manifest.read_text().replace(f'id = "{good.id}"', 'id = "broken-copy"'))
    broken = load_task(broken_root)
    with pytest.raises(AgbenchError, match="duplicate task id"):
        synthesize([good, good], answers={})
    ts = synthesize([good, broken], backend="bwrap")
    ok, bad = ts.get(good.id, "LO"), [t for t in ts.trajectories if t.recorded_status]
    assert ok is not None
    assert ok.answer
    assert not ok.recorded_status
    assert len(bad) == 4
    assert all(t.recorded_status == "oracle_failed" for t in bad)
    assert ts.profile["backend"] == "bwrap"


def test_bad_plans_are_one_line_errors(suite: list[Task], tmp_path: Path) -> None:
    root = tmp_path / "task"
    shutil.copytree(suite[0].path, root)
    plan = root / "solution" / "tools.json"
    for text, message in [
        ("{not json", "not valid JSON"),
        ("[]", "non-empty list"),
        ('[{"arguments": {}}]', "needs a string 'tool'"),
        ('[{"tool": "python", "arguments": 3}]', "must be an object"),
    ]:
        plan.write_text(text)
        with pytest.raises(AgbenchError, match=message):
            synthesize([load_task(root)], answers={})
    plan.write_text('[{"tool": "search_files", "arguments": {"pattern": "@example.com", "path": "."}}]')
    assert load_plan(load_task(root)) == [("search_files", {"pattern": "@example.com", "path": "."})]
    plan.unlink()  # no plan: one python call running solve.py
    assert load_plan(load_task(root)) == [("python", {"code": (root / "solution" / "solve.py").read_text()})]
    with pytest.raises(AgbenchError, match="no tasks"):
        synthesize([])


# ---- extraction -------------------------------------------------------------------------------
def _write_hcl_run(root: Path) -> Path:
    """A small HCL run written through the real store: lead delegates once, sub reads a file."""
    store = RunStore.create(root, {"run_id": "r1", "source": "live", "agent_kind": "model", "device": "dev"})
    ids: dict[str, Any] = dict(
        run_id="r1", device="dev", architecture="HCL", concurrency=1, task="t1", attempt=1
    )
    rows = [
        ModelCall(**ids, agent="cloud", endpoint="cloud", call_id="a", t_start=100.0, total_s=1.0,
                  prompt_tokens=300, completion_tokens=40),
        ModelCall(**ids, agent="local-sub", endpoint="local", call_id="b", t_start=101.5, total_s=1.0,
                  prompt_tokens=250, completion_tokens=20),
        ToolCall(**ids, agent="local-sub", call_id="c", tool="read_file", t_start=102.6, wall_s=0.1,
                 bytes_out=400),
        ModelCall(**ids, agent="local-sub", endpoint="local", call_id="d.r0", t_start=103.0, total_s=0.2,
                  error_class="connection", retry=0),
        ModelCall(**ids, agent="local-sub", endpoint="local", call_id="d", t_start=103.5, total_s=1.0,
                  prompt_tokens=380, completion_tokens=15, retry=1),
        Message(**ids, kind="delegate", sender="cloud", receiver="local-sub", t_start=101.2, t_end=104.8),
        ModelCall(**ids, agent="cloud", endpoint="cloud", call_id="e", t_start=105.0, total_s=1.0,
                  prompt_tokens=360, completion_tokens=10),
        TaskRun(**ids, agent_kind="model", category="local_files", t_start=99.0,
                t_end=107.0, status="success", reward=1.0, answer="42"),
    ]  # fmt: skip
    with store.attempt_writer(AttemptKey.parse("r", "dev|HCL|1|t1|1")) as w:
        for row in rows:
            w.write(row)
    sub_history = [
        {"role": "system", "content": "s" * 400},
        {"role": "user", "content": "do it"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "x", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "n.txt"}'}}]},
        {"role": "tool", "tool_call_id": "x", "content": "20 22"},
    ]  # fmt: skip
    raw = [
        {
            "t": 101.5,
            "task": "t1",
            "attempt": 1,
            "agent": "local-sub",
            "request": {"body": {"messages": sub_history[:2]}},
        },
        {
            "t": 103.5,
            "task": "t1",
            "attempt": 1,
            "agent": "local-sub",
            "request": {"body": {"messages": sub_history}},
        },
    ]
    (root / "raw_responses.jsonl").write_text("".join(json.dumps(r) + "\n" for r in raw) + '{"trunc')
    store.compact()
    return root


def test_extraction_rebuilds_turns_delegations_and_arguments(tmp_path: Path) -> None:
    ts = extract(_write_hcl_run(tmp_path / "run"))
    assert ts.source == "extracted"
    assert ts.profile["tool_calls_without_arguments"] == 0
    [lead] = ts.trajectories
    assert (lead.task, lead.architecture, lead.answer, lead.recorded_status) == ("t1", "HCL", "42", "success")
    assert [t.endpoint for t in lead.turns] == ["cloud", "cloud"]
    assert lead.system_prompt_tokens + lead.turns[0].prompt_tokens_added == 300
    assert lead.turns[1].prompt_tokens_added == 360 - 340
    assert lead.turns[1].output_tokens == 10
    sub = lead.turns[0].delegate
    assert sub is not None
    assert sub.agent == "sub"
    assert lead.turns[1].delegate is None
    assert sub.system_prompt_tokens == 100  # the system message actually sent, 400 bytes / 4
    # The failed first try of call d carried no decision: two sub turns, sized from the final try.
    assert [(t.prompt_tokens_added, t.output_tokens) for t in sub.turns] == [(150, 20), (380 - 270, 15)]
    [step] = sub.turns[0].tools
    assert (step.tool, step.arguments, step.output_tokens) == ("read_file", {"path": "n.txt"}, 100)
    assert sub.turns[1].think_s == pytest.approx(103.5 - 102.7)


def _write_two_delegation_run(root: Path, options: dict[str, Any]) -> Path:
    """An HCL run whose lead delegates twice; the sub-agent's second delegation starts at 460
    prompt tokens, which with a persistent sub-agent is its first delegation's history (395)
    plus the new instruction."""
    meta = {"run_id": "r2", "source": "live", "agent_kind": "model", "device": "dev", "options": options}
    store = RunStore.create(root, meta)
    ids: dict[str, Any] = dict(
        run_id="r2", device="dev", architecture="HCL", concurrency=1, task="t1", attempt=1
    )
    rows = [
        ModelCall(**ids, agent="cloud", endpoint="cloud", call_id="a", t_start=100.0, total_s=1.0,
                  prompt_tokens=300, completion_tokens=40),
        ModelCall(**ids, agent="local-sub", endpoint="local", call_id="b", t_start=101.5, total_s=1.0,
                  prompt_tokens=250, completion_tokens=20),
        ModelCall(**ids, agent="local-sub", endpoint="local", call_id="c", t_start=103.0, total_s=1.0,
                  prompt_tokens=380, completion_tokens=15),
        Message(**ids, kind="delegate", sender="cloud", receiver="local-sub", t_start=101.2, t_end=104.5),
        ModelCall(**ids, agent="cloud", endpoint="cloud", call_id="d", t_start=105.0, total_s=1.0,
                  prompt_tokens=360, completion_tokens=30),
        ModelCall(**ids, agent="local-sub", endpoint="local", call_id="e", t_start=106.5, total_s=1.0,
                  prompt_tokens=460, completion_tokens=10),
        Message(**ids, kind="delegate", sender="cloud", receiver="local-sub", t_start=106.2, t_end=107.8),
        ModelCall(**ids, agent="cloud", endpoint="cloud", call_id="f", t_start=108.0, total_s=1.0,
                  prompt_tokens=420, completion_tokens=10),
        TaskRun(**ids, agent_kind="model", category="local_files", t_start=99.0,
                t_end=110.0, status="success", reward=1.0, answer="42"),
    ]  # fmt: skip
    with store.attempt_writer(AttemptKey.parse("r", "dev|HCL|1|t1|1")) as w:
        for row in rows:
            w.write(row)
    store.compact()
    return root


@pytest.mark.parametrize(
    ("options", "recorded", "second_added"),
    [
        ({"hcl_sub_agent": "persistent"}, "persistent", 460 - 395),  # on top of the kept history
        ({"hcl_sub_agent": "fresh"}, "fresh", None),  # on top of the system prompt
        ({}, "fresh", None),  # a run.json from before the option ran fresh sub-agents
    ],
)
def test_extraction_follows_the_runs_sub_agent_memory(
    tmp_path: Path, options: dict[str, Any], recorded: str, second_added: int | None
) -> None:
    ts = extract(_write_two_delegation_run(tmp_path / "run", options))
    assert ts.profile["hcl_sub_agent"] == recorded
    [lead] = ts.trajectories
    first, second = (t.delegate for t in lead.turns[:2])
    assert first is not None
    assert second is not None
    assert [t.prompt_tokens_added for t in first.turns] == [250 - first.system_prompt_tokens, 380 - 270]
    added = second.turns[0].prompt_tokens_added
    assert added == (second_added if second_added is not None else 460 - second.system_prompt_tokens)


def test_extraction_errors(tmp_path: Path) -> None:
    with pytest.raises(AgbenchError, match="not found"):
        extract(tmp_path / "absent")
    empty = tmp_path / "empty"
    RunStore.create(empty, {"run_id": "e", "source": "live"}).compact()
    with pytest.raises(AgbenchError, match="no finished task attempt"):
        extract(empty)
    sim = tmp_path / "sim"
    RunStore.create(sim, {"run_id": "s", "source": "sim"})
    with pytest.raises(AgbenchError, match="sim run"):
        extract(sim)
