"""The simulator records through the core: its labels, its task order, its counters.

- every simulated row's agent label, endpoint, message kind, error class and status is a
  value of the core's enums, and HLL's consultation is labelled ``cloud`` (as live);
- each ``task_runs`` row is what its own rows add up to (one counters-to-row function);
- the tasks run in the core's one order (``select_tasks``), and ``--limit`` takes its first N.
"""

from __future__ import annotations

from collections import defaultdict

import pytest

from agbench.attempt import AgentLabel, Endpoint, ErrorClass, MessageKind
from agbench.errors import AgbenchError
from agbench.records import Message, ModelCall, TaskRun, ToolCall
from agbench.sim import SimResult, load_scenario, simulate
from agbench.status import Status
from agbench.task import select_tasks


def test_rows_use_the_core_vocabulary_and_add_up_to_the_task_run() -> None:
    sc = load_scenario("this-machine-smollm2")
    workload = sc.workload(limit=6)
    for arch in ("LO", "CO", "HCL", "HLL"):
        result = simulate(sc.profile, arch, 2, 0, workload)
        per_attempt: dict[tuple[str, int], list[object]] = defaultdict(list)
        for row in result.records:
            if isinstance(row, ModelCall):
                AgentLabel(row.agent), Endpoint(row.endpoint), ErrorClass(row.error_class)
                assert Endpoint(row.endpoint) is AgentLabel(row.agent).endpoint
            elif isinstance(row, ToolCall):
                AgentLabel(row.agent)
            elif isinstance(row, Message):
                MessageKind(row.kind), AgentLabel(row.sender), AgentLabel(row.receiver)
            elif isinstance(row, TaskRun):
                Status(row.status)
            if hasattr(row, "task"):
                assert (row.run_id, row.device, row.architecture, row.concurrency) == (
                    "sim",
                    sc.profile.device.name,
                    arch,
                    2,
                )
                per_attempt[(row.task, row.attempt)].append(row)
        for rows in per_attempt.values():
            [run] = [r for r in rows if isinstance(r, TaskRun)]
            calls = [r for r in rows if isinstance(r, ModelCall)]
            cloud = [c for c in calls if c.endpoint == Endpoint.CLOUD]
            assert run.agent_kind == "sim-synthetic"
            assert run.model_calls == len(calls)
            assert run.cloud_calls == len(cloud)
            assert run.tool_calls == sum(isinstance(r, ToolCall) for r in rows)
            assert run.prompt_tokens == sum(c.prompt_tokens for c in calls)
            assert run.cloud_prompt_tokens == sum(c.prompt_tokens for c in cloud)
            waited = sum(c.total_s for c in calls) + sum(r.wall_s for r in rows if isinstance(r, ToolCall))
            assert abs(run.local_model_s + run.cloud_model_s + run.tools_s - waited) < 1e-6
        if arch == "HLL":
            consults = [r for r in result.records if isinstance(r, Message)]
            assert consults
            assert {(m.kind, m.sender, m.receiver) for m in consults} == {
                (MessageKind.CONSULT, AgentLabel.LOCAL, AgentLabel.CLOUD)
            }
            agents = {r.agent for r in result.records if isinstance(r, ModelCall)}
            assert agents == {AgentLabel.LOCAL, AgentLabel.CLOUD}
        if arch == "CO":
            tools = {r.agent for r in result.records if isinstance(r, ToolCall)}
            assert tools == {AgentLabel.CLOUD}  # the cloud lead calls the tools, as live


def test_tasks_run_in_the_core_order_and_limit_takes_its_first_n() -> None:
    sc = load_scenario("this-machine-smollm2")
    full = sc.workload()
    for seed in (0, 3):
        order = [t.task for t in select_tasks(full.tasks, seed=seed)]
        result = simulate(sc.profile, "CO", 1, seed, full)
        assert result.task_order == order
        started = [r.task for r in sorted(result.task_runs(), key=lambda r: r.t_start)]
        assert started == order  # C = 1: each task starts when the previous one ends
        limited = simulate(sc.profile, "CO", 1, seed, sc.workload(limit=5))
        assert limited.task_order == order[:5]


def test_an_explicit_order_runs_as_given_and_a_task_named_twice_is_its_second_attempt() -> None:
    """``order`` (validation's: the order a live run recorded, repeated as ``--repeat`` ran
    it) replaces the seed's; a task named twice runs twice, as attempts 1 and 2."""
    sc = load_scenario("this-machine-smollm2")
    full = sc.workload()
    ids = [t.task for t in full.tasks[:3]]
    order = [*reversed(ids), *reversed(ids)]
    result = simulate(sc.profile, "CO", 1, 0, full, order=order)
    runs = sorted(result.task_runs(), key=lambda r: r.t_start)
    assert [r.task for r in runs] == order
    assert [r.attempt for r in runs] == [1, 1, 1, 2, 2, 2]
    with pytest.raises(AgbenchError, match="no trajectory for task"):
        simulate(sc.profile, "CO", 1, 0, full, order=["no-such-task"])


def test_a_token_cap_cuts_each_request_and_the_replayed_history_keeps_its_size() -> None:
    """``--local-max-tokens`` / ``--cloud-max-tokens`` cut what each request generates on that
    endpoint; the replay agent still pads the next prompt to the recorded size, so the
    prompts a capped run sends are the uncapped run's."""
    sc = load_scenario("this-machine-smollm2")
    workload = sc.workload(limit=3)
    free = simulate(sc.profile, "HLL", 1, 0, workload)
    sc.profile.behaviour.local_max_tokens, sc.profile.behaviour.cloud_max_tokens = 5, 7
    capped = simulate(sc.profile, "HLL", 1, 0, workload)

    def calls(result: SimResult, endpoint: Endpoint) -> list[ModelCall]:
        rows = [r for r in result.records if isinstance(r, ModelCall) and r.endpoint == endpoint]
        return sorted(rows, key=lambda r: r.t_start)

    for endpoint, cap in ((Endpoint.LOCAL, 5), (Endpoint.CLOUD, 7)):
        before, after = calls(free, endpoint), calls(capped, endpoint)
        assert [r.prompt_tokens for r in after] == [r.prompt_tokens for r in before]
        assert [r.completion_tokens for r in after] == [min(r.completion_tokens, cap) for r in before]
        assert any(r.completion_tokens > cap for r in before)  # the cap had something to cut
