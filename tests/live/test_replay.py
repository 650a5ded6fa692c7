"""The replay agent against the real llama-server (SmolLM2), real sandboxes and real tools.

- sizes: every request carries the trajectory's prompt tokens and generates its output
  tokens, as the server itself reports them (within ±2 %; on llama.cpp they are exact);
- success: a synthesised trajectory replayed at C = 1 succeeds wherever the oracle does;
- contention: the same set at C = 8 on a 4,096-token unified KV pool fails with real
  ``context_limit`` errors;
- round trip: a trajectory extracted from a run replays to the same tool calls;
- HCL's sub-agent (``hcl_sub_agent``): a persistent one's second delegation carries the first
  one's history (the server reports it as cached prompt tokens), a fresh one starts anew;
- failure policies (scripted endpoints, error paths only): LO ends on a context error, HCL's
  lead re-delegates a bounded number of times then gives up (a persistent sub-agent resends
  the history that failed), HLL carries on past a failed consultation.
"""

from __future__ import annotations

import asyncio
import itertools
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from agbench.attempt import AttemptKey
from agbench.config import Architecture, Configuration, PriceTable, ServerSettings
from agbench.errors import AgbenchError
from agbench.live.agents.base import AgentContext, AgentOutcome, AttemptRecorder
from agbench.live.providers import ChatClient, MockChatClient, MockReply
from agbench.live.providers.errors import ErrorClass
from agbench.live.replay import ReplayAgent
from agbench.live.sandbox import create_sandbox
from agbench.live.serving import ManagedServer
from agbench.live.tools import default_tools
from agbench.live.trajectories import extract, synthesize
from agbench.live.trajectories.synth import load_plan
from agbench.live.verification import verify
from agbench.status import Status
from agbench.store import RunStore
from agbench.task import Task, load_suite
from agbench.trajectory import Trajectory, TrajectorySet

pytestmark = [
    pytest.mark.bwrap,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed"),
]

TOLERANCE = 0.02
#: A profile of short turns for the C = 1 checks, so they take seconds on 2 cores; the C = 8
#: check uses the default profile, whose sizes the sizing rule is about.
TINY_PROFILE = (Path(__file__).parent / "tiny_profile.toml").read_text()


def steps(traj: Trajectory) -> list[tuple[str, dict[str, Any]]]:
    return [(s.tool, s.arguments) for turn in traj.turns for s in turn.tools]


def request_sizes(traj: Trajectory) -> list[tuple[int, int]]:
    """(prompt tokens, output tokens) of each of this agent's requests, in order."""
    out, history = [], traj.system_prompt_tokens
    for turn in traj.turns:
        history += turn.prompt_tokens_added
        out.append((history, turn.output_tokens))
        history += turn.output_tokens
    return out


def carried_request_sizes(subs: list[Trajectory]) -> list[tuple[int, int]]:
    """A persistent sub-agent's requests over its delegations: one history throughout, each
    delegation's first turn adding its instruction to it."""
    out, history = [], subs[0].system_prompt_tokens
    for sub in subs:
        for turn in sub.turns:
            history += turn.prompt_tokens_added
            out.append((history, turn.output_tokens))
            history += turn.output_tokens
    return out


def assert_sizes(calls: pd.DataFrame, traj: Trajectory, planned: list[tuple[int, int]] | None = None) -> None:
    """Every local model call of the lead (and of HCL's sub-agents) is sized as planned."""
    planned = planned if planned is not None else request_sizes(traj)
    got = list(zip(calls["prompt_tokens"], calls["completion_tokens"], strict=True))
    assert len(got) == len(planned), (traj.task, traj.architecture, got, planned)
    for (prompt, output), (want_prompt, want_output) in zip(got, planned, strict=True):
        assert abs(prompt - want_prompt) <= TOLERANCE * want_prompt, (traj.task, got, planned)
        assert abs(output - want_output) <= max(1, TOLERANCE * want_output), (traj.task, got, planned)


@pytest.fixture(scope="module")
def suite() -> list[Task]:
    return load_suite()


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("profile") / "tiny.toml"
    path.write_text(TINY_PROFILE)
    return path


def short_tasks(suite: list[Task], n: int) -> list[Task]:
    """The n tasks with the shortest oracle plans (the cheapest to replay), by id for ties."""
    return sorted(suite, key=lambda t: (len(load_plan(t)), t.id))[:n]


# ---- the agent with a context of our own (real server, no runner) ---------------------------
@pytest.fixture(scope="module")
def server() -> Iterator[ManagedServer]:
    # one thread, like every other test server: two would contend with the other xdist worker
    with ManagedServer(ServerSettings(n_ctx=4096, n_parallel=1, threads=1)) as s:
        yield s


async def replay_once(
    task: Task, arch: Architecture, trajectories: TrajectorySet, backends: dict[str, Any], urls: dict[str, str],
    tmp: Path, agent: ReplayAgent | None = None,
) -> tuple[AgentOutcome, AttemptRecorder, list[Any], Any]:  # fmt: skip
    """One attempt: a real bwrap sandbox, the common tools, the given endpoints; then the verifier."""
    rows: list[Any] = []

    class ListWriter:
        def write(self, record: Any) -> None:
            rows.append(record)

    writer: Any = ListWriter()
    recorder = AttemptRecorder(
        writer, AttemptKey("run", Configuration("dev", arch, 1), task.id, 1), PriceTable()
    )
    sandbox = create_sandbox("bwrap", task, tmp / f"{task.id}-{arch.value}")
    await sandbox.start()
    try:
        ctx = AgentContext(
            task=task,
            architecture=arch,
            sandbox=sandbox,
            tools=default_tools(task),
            deadline=time.monotonic() + 300,
            seed=0,
            server_urls=urls,
            backends=backends,
            recorder=recorder,
        )
        outcome = await (agent or ReplayAgent(trajectories)).run(ctx)
        verdict = await verify(sandbox, task, outcome.answer) if outcome.status is None else None
    finally:
        await sandbox.destroy()
    return outcome, recorder, rows, verdict


@pytest.mark.server
def test_replay_sizes_requests_runs_tools_and_succeeds(
    server: ManagedServer, suite: list[Task], tiny: Path, tmp_path: Path
) -> None:
    [task] = short_tasks(suite, 1)
    ts = synthesize([task], tiny)  # runs the oracle in a bwrap sandbox for the answer
    urls = {"local": server.url, "cloud": server.url}  # the same server stands in for the cloud

    async def main() -> dict[str, Any]:
        out = {}
        for arch in (Architecture.LO, Architecture.HCL, Architecture.HLL):
            async with (
                ChatClient(server.url, "m", endpoint="local") as local,
                ChatClient(server.url, "m", endpoint="cloud") as cloud,
            ):
                out[arch.value] = await replay_once(
                    task, arch, ts, {"local": local, "cloud": cloud}, urls, tmp_path
                )
        return out

    results = asyncio.run(main())
    plan = [name for name, _ in load_plan(task)]
    for arch, (outcome, _, rows, verdict) in results.items():
        traj = ts.get(task.id, arch)
        assert traj is not None
        assert outcome.status is None, (arch, outcome, verdict)
        assert verdict is not None, (arch, outcome, verdict)
        assert verdict.success, (arch, outcome, verdict)
        assert outcome.answer == traj.answer
        assert "synth trajectory" in outcome.reason
        calls = pd.DataFrame([r.__dict__ for r in rows if r.TABLE == "model_calls"])
        assert (calls["error_class"] == "").all()
        tools = [r.tool for r in rows if r.TABLE == "tool_calls"]
        messages = [r for r in rows if r.TABLE == "messages"]
        assert tools == plan, arch
        if arch == "HCL":
            assert [(m.kind, m.sender, m.receiver, m.ok) for m in messages] == [
                ("delegate", "cloud", "local-sub", True)
            ]
            sub = traj.turns[0].delegate
            assert sub is not None
            assert_sizes(calls[calls["agent"] == "local-sub"], sub)
            assert_sizes(calls[calls["agent"] == "cloud"], traj)
        else:
            lead = calls[calls["agent"] == "local"]
            assert_sizes(lead, traj)
            if arch == "HLL":
                [consult] = [t.consult for t in traj.turns if t.consult is not None]
                [m] = messages
                assert (m.kind, m.sender, m.receiver, m.ok) == ("consult", "local", "cloud", True)
                [row] = calls[calls["agent"] == "cloud"].to_dict("records")
                assert (
                    abs(row["prompt_tokens"] - consult.prompt_tokens_added)
                    <= TOLERANCE * consult.prompt_tokens_added
                )
                assert row["completion_tokens"] == consult.output_tokens
        if arch == "LO":  # each turn reuses the previous one's prefix: the history really grows
            assert (
                calls["cached_tokens"].iloc[1:] >= calls["prompt_tokens"].iloc[:-1].to_numpy() * 0.9
            ).all()


@pytest.mark.server
def test_hcl_persistent_sub_agent_carries_its_history_into_the_next_delegation(
    server: ManagedServer, suite: list[Task], tiny: Path, tmp_path: Path
) -> None:
    """Two delegations of one task: the persistent sub-agent's second delegation is sent with
    the first one's history, which the server finds in its prefix cache; a fresh sub-agent's
    second delegation starts from the system prompt."""
    task = next(t for t in short_tasks(suite, len(suite)) if len(load_plan(t)) >= 2)
    profile = tmp_path / "two.toml"
    profile.write_text(TINY_PROFILE.replace("[hybrid]", "[hybrid]\ndelegations = 2"))
    ts = synthesize([task], profile)
    traj = ts.get(task.id, "HCL")
    assert traj is not None
    subs = [t.delegate for t in traj.turns if t.delegate is not None]
    assert len(subs) == 2
    urls = {"local": server.url, "cloud": server.url}

    async def main(memory: str) -> tuple[AgentOutcome, AttemptRecorder, list[Any], Any]:
        async with (
            ChatClient(server.url, "m", endpoint="local") as local,
            ChatClient(server.url, "m", endpoint="cloud") as cloud,
        ):
            agent = ReplayAgent(ts, hcl_sub_agent=memory)
            return await replay_once(
                task, Architecture.HCL, ts, {"local": local, "cloud": cloud}, urls, tmp_path / memory, agent
            )

    sub_calls = {}
    for memory in ("persistent", "fresh"):
        (tmp_path / memory).mkdir()
        outcome, _, rows, verdict = asyncio.run(main(memory))
        assert outcome.status is None, (memory, outcome)
        assert verdict is not None, (memory, outcome)
        assert verdict.success, (memory, outcome)
        assert [m.ok for m in rows if m.TABLE == "messages"] == [True, True]
        calls = pd.DataFrame([r.__dict__ for r in rows if r.TABLE == "model_calls"])
        sub_calls[memory] = calls[calls["agent"] == "local-sub"].reset_index(drop=True)
    persistent, fresh = sub_calls["persistent"], sub_calls["fresh"]
    assert_sizes(persistent, subs[0], carried_request_sizes(subs))
    second = len(subs[0].turns)  # the second delegation's first request
    first_history = int(persistent["prompt_tokens"][second - 1] + persistent["completion_tokens"][second - 1])
    assert persistent["prompt_tokens"][second] > first_history
    # the first delegation's history, as the server's cache saw it (the last reply's tokens may
    # re-tokenise differently at the boundary)
    assert persistent["cached_tokens"][second] >= 0.9 * first_history
    assert_sizes(fresh.iloc[second:], subs[1])  # a fresh sub-agent: its own history only
    assert fresh["prompt_tokens"][second] < first_history


# ---- failure policies (scripted endpoints) ---------------------------------------------------
def scripted_set(suite: list[Task]) -> tuple[Task, TrajectorySet]:
    task = short_tasks(suite, 1)[0]
    return task, synthesize([task], answers={task.id: "the answer"})


def test_lo_ends_on_a_local_context_error(suite: list[Task], tmp_path: Path) -> None:
    task, ts = scripted_set(suite)
    local = MockChatClient([MockReply("ok"), MockReply(error_class=ErrorClass.CONTEXT_LIMIT)], name="local")
    outcome, _, rows, _ = asyncio.run(replay_once(task, Architecture.LO, ts, {"local": local}, {}, tmp_path))
    assert outcome.status is Status.CONTEXT_LIMIT
    assert outcome.answer == ""
    assert outcome.local_context_errors == 1
    assert "context_limit" in outcome.reason
    assert "not forced" in outcome.reason  # a server that cannot force output lengths is named
    assert len([r for r in rows if r.TABLE == "tool_calls"]) == 1  # the first turn's tools ran


def test_hcl_lead_redelegates_a_bounded_number_of_times(suite: list[Task], tmp_path: Path) -> None:
    task, ts = scripted_set(suite)
    failure = MockReply(error_class=ErrorClass.CONTEXT_LIMIT)
    for memory in ("persistent", "fresh"):
        local = MockChatClient([failure] * 10, name="local")
        cloud = MockChatClient(["delegate this"] * 10, name="cloud")
        agent = ReplayAgent(ts, max_redelegations=2, hcl_sub_agent=memory)
        (tmp_path / memory).mkdir()
        outcome, _, rows, verdict = asyncio.run(
            replay_once(
                task, Architecture.HCL, ts, {"local": local, "cloud": cloud}, {}, tmp_path / memory, agent
            )
        )
        delegations = [r for r in rows if r.TABLE == "messages"]
        assert [m.ok for m in delegations] == [False, False, False]  # first try + 2 re-delegations
        assert outcome.status is None
        assert outcome.answer == ""
        assert "gave up" in outcome.reason
        assert outcome.local_context_errors == 3  # counted although the cloud lead carried on
        assert len(cloud.requests) == 3  # the delegating turn, then one turn per re-delegation
        assert verdict is not None
        assert not verdict.success
        sent = [r["messages"] for r in local.requests]
        if memory == "persistent":  # each retry resends the history that failed + an instruction
            for before, after in itertools.pairwise(sent):
                assert after[: len(before)] == before
                assert after[len(before)]["role"] == "user"
        else:  # each retry starts anew: system prompt + instruction
            assert all(len(m) == 2 and m[0]["role"] == "system" for m in sent)


def test_hll_carries_on_past_a_failed_consultation(suite: list[Task], tmp_path: Path) -> None:
    task, ts = scripted_set(suite)
    traj = ts.get(task.id, "HLL")
    assert traj is not None
    local = MockChatClient(["step"] * len(traj.turns), name="local")
    cloud = MockChatClient([MockReply(error_class=ErrorClass.SERVER_ERROR)], name="cloud")
    outcome, _, rows, _ = asyncio.run(
        replay_once(task, Architecture.HLL, ts, {"local": local, "cloud": cloud}, {}, tmp_path)
    )
    assert outcome.status is None
    assert outcome.answer == "the answer"
    [message] = [r for r in rows if r.TABLE == "messages"]
    assert (message.kind, message.ok) == ("consult", False)
    assert len(local.requests) == len(traj.turns)
    # The consultation's failure is in the history of the next local turn, as a tool result.
    last = local.requests[-1]["messages"]
    assert any(m.get("role") == "tool" and "consultation failed" in str(m.get("content")) for m in last)


def test_missing_trajectories_are_named(suite: list[Task]) -> None:
    task, ts = scripted_set(suite)
    agent = ReplayAgent(ts)
    agent.check([task.id], ["LO", "HLL"])
    with pytest.raises(AgbenchError, match="no trajectory for nope/LO"):
        agent.check([task.id, "nope"], ["LO"])


# ---- end to end through the runner ------------------------------------------------------------
def sweep(
    tmp: Path, name: str, trajectories: Path, archs: list[str], conc: list[int], tasks: list[Task], **kw: Any
) -> Path:
    from agbench.live.runner import SweepOptions, run_sweep

    options = SweepOptions(
        archs=[Architecture(a) for a in archs],
        concurrency=conc,
        task_ids=[t.id for t in tasks],
        agent="replay",
        trajectories=trajectories,
        out=tmp / name,
        runs_root=tmp / "runs",
        quiet=True,
        write_reports=False,
        local_threads=1,
        **kw,
    )
    run_dir: Path = run_sweep(options)
    return run_dir


@pytest.mark.server
@pytest.mark.slow
def test_sweeps_succeed_at_c1_fail_for_context_at_c8_and_extracted_runs_replay(
    suite: list[Task], tiny: Path, tmp_path: Path
) -> None:
    tasks = short_tasks(suite, 8)
    few = tasks[:2]
    ts = synthesize(few, tiny)
    oracle_ok = {t.task for t in ts.trajectories if not t.recorded_status}
    path = tmp_path / "synth.jsonl"
    ts.save(path)

    # C = 1: every task whose oracle succeeds succeeds, every request sized as planned.
    run1 = sweep(tmp_path, "c1", path, ["LO", "HLL"], [1], few)
    store = RunStore.open(run1)
    runs, calls = store.table("task_runs"), store.table("model_calls")
    assert (runs["agent_kind"] == "replay").all()
    for row in runs.to_dict("records"):
        assert row["status"] == ("success" if row["task"] in oracle_ok else "verification_failed"), row
        traj = ts.get(row["task"], row["architecture"])
        assert traj is not None
        mine = calls[(calls["task"] == row["task"]) & (calls["architecture"] == row["architecture"])]
        assert_sizes(mine[mine["agent"] == "local"].sort_values("t_start"), traj)

    # The run, extracted, replays to the same tool calls.
    extracted = extract(run1)
    assert extracted.profile["tool_calls_without_arguments"] == 0
    for traj in extracted.trajectories:
        original = ts.get(traj.task, traj.architecture)
        assert original is not None
        assert steps(traj) == steps(original)
    again_path = tmp_path / "extracted.jsonl"
    extracted.save(again_path)
    run2 = sweep(tmp_path, "again", again_path, ["LO"], [1], few)
    tools1, tools2 = RunStore.open(run1).table("tool_calls"), RunStore.open(run2).table("tool_calls")

    def tool_sequence(df: pd.DataFrame, task: str) -> list[str]:
        return list(df[(df["task"] == task) & (df["architecture"] == "LO")].sort_values("t_start")["tool"])

    for task in few:
        assert tool_sequence(tools2, task.id) == tool_sequence(tools1, task.id) != []
    assert (RunStore.open(run2).table("task_runs")["status"] == "success").all()

    # C = 8 on a 4,096-token unified pool, default profile: real context-limit failures.
    default = synthesize(tasks)
    default_path = tmp_path / "default.jsonl"
    default.save(default_path)
    run8 = sweep(tmp_path, "c8", default_path, ["LO"], [8], tasks, local_ctx=4096, local_kv_unified=True)
    store8 = RunStore.open(run8)
    runs8, calls8 = store8.table("task_runs"), store8.table("model_calls")
    assert len(runs8) == 8
    assert (runs8["status"] == "context_limit").sum() >= 1
    assert (calls8["error_class"] == "context_limit").sum() >= 1
    # The requests that went through were sized as planned, contention or not.
    for traj in default.trajectories:
        if traj.architecture != "LO":
            continue
        mine = calls8[calls8["task"] == traj.task].sort_values("t_start")
        ok = mine[mine["error_class"] == ""]  # the calls before the one that failed, if any
        for prompt, (want, _) in zip(ok["prompt_tokens"], request_sizes(traj)[: len(ok)], strict=True):
            assert abs(prompt - want) <= TOLERANCE * want, (traj.task, prompt, want)
