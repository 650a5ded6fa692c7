"""Recorded trajectories: any live run directory's agent behaviour as a replayable set.

For each (task, architecture) of the run one attempt is taken: a finished, non-interrupted
one, preferring a successful attempt, then the lowest concurrency (the least disturbed by
contention), then the latest. From its trace tables:

- each agent's model calls (``model_calls``, the final try of each call; calls that failed
  carried no decision and are left out) become its turns, in time order. A turn's
  ``prompt_tokens_added`` is the call's prompt minus the previous call's prompt and output
  (what the agent appended: tool results, reports, answers), the first turn's is the prompt
  minus the system prompt; ``output_tokens`` the call's completion; ``think_s`` the harness's
  time between the previous step's end and the request;
- the tool calls (``tool_calls``) an agent made between two of its model calls belong to the
  earlier turn, with their recorded wall and CPU time and output size;
- a ``delegate`` message (HCL) attaches the sub-agent calls and tools inside its time window
  to the lead turn before it as a sub-trajectory; a ``consult`` message (HLL) attaches the
  cloud call inside its window as the consultation turn. A sub-trajectory's first turn adds
  its instruction: where the run's sub-agent kept its history across delegations (run.json
  ``options.hcl_sub_agent``, ``agbench.hcl_sub_agent``), that is the call's prompt minus the
  history the earlier delegations left, else minus the system prompt; either way the set
  replays under either behaviour, and its header names the one it was recorded with;
- the final answer and status come from ``task_runs``.

Tool arguments come from the ``tool_calls`` table's ``arguments`` column when the run has
one, else from the agent's own history in ``raw_responses.jsonl`` (the assistant messages'
``tool_calls`` in the agent's later requests, matched to the executed calls by order and
name); a call whose arguments cannot be found replays with ``{}`` and the set's header
counts them. System prompt sizes are estimated from the prompts recorded in ``run.json`` at
4 bytes per token: only their split from the instruction is estimated, every request's total
is exact.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from agbench.attempt import MessageKind
from agbench.config import Architecture
from agbench.errors import AgbenchError
from agbench.hcl_sub_agent import SubAgentMemory, recorded_sub_agent
from agbench.live.architectures import plan_for, system_prompt
from agbench.run_meta import RunSource
from agbench.status import Status
from agbench.store import RunStore
from agbench.trajectory import ToolStep, Trajectory, TrajectorySet, Turn

BYTES_PER_TOKEN = 4
RAW_RESPONSES = "raw_responses.jsonl"


@dataclass
class _Attempt:
    """The rows of one attempt, each table sorted by start time."""

    task: str
    architecture: str
    concurrency: int
    attempt: int
    row: dict[str, Any]
    calls: pd.DataFrame
    tools: pd.DataFrame
    messages: pd.DataFrame
    history_calls: dict[str, list[list[tuple[str, dict[str, Any]]]]] = field(default_factory=dict)


def _estimate_tokens(text: str) -> int:
    return math.ceil(len(text.encode()) / BYTES_PER_TOKEN)


def _choose_attempts(task_runs: pd.DataFrame) -> pd.DataFrame:
    runs = task_runs[task_runs["status"] != Status.INTERRUPTED.value].copy()
    if runs.empty:
        return runs
    runs["_ok"] = (runs["status"] == Status.SUCCESS.value).astype(int)
    runs = runs.sort_values(["_ok", "concurrency", "attempt"], ascending=[False, True, False])
    return runs.drop_duplicates(["task", "architecture"], keep="first")


def _final_tries(calls: pd.DataFrame) -> pd.DataFrame:
    """One row per model call: the last HTTP try (retries are ``<id>.r<n>`` rows before it)."""
    if calls.empty:
        return calls
    base = calls["call_id"].astype(str).str.replace(r"\.r\d+$", "", regex=True)
    calls = calls.assign(_base=base).sort_values(["t_start", "retry"])
    return calls.drop_duplicates("_base", keep="last").drop(columns="_base")


def _raw_histories(run_dir: Path) -> dict[tuple[str, int, str], list[tuple[float, list[dict[str, Any]]]]]:
    """Per (task, attempt, agent): every request's messages, with its time."""
    out: dict[tuple[str, int, str], list[tuple[float, list[dict[str, Any]]]]] = {}
    path = run_dir / RAW_RESPONSES
    if not path.is_file():
        return out
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            try:
                entry = json.loads(line)
                messages = entry["request"]["body"]["messages"]
                key = (str(entry["task"]), int(entry["attempt"]), str(entry["agent"]))
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                continue  # a truncated last line or a request without messages
            if isinstance(messages, list):
                out.setdefault(key, []).append((float(entry.get("t", 0.0)), messages))
    for requests in out.values():
        requests.sort(key=lambda r: r[0])
    return out


def _calls_in_history(messages: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """The tool calls of the assistant messages of one request's history, in order."""
    found: list[tuple[str, dict[str, Any]]] = []
    for message in messages:
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        for call in message.get("tool_calls") or []:
            function = call.get("function", {}) if isinstance(call, dict) else {}
            name = function.get("name")
            args: Any = function.get("arguments", {})
            if isinstance(args, str):
                try:
                    args = json.loads(args)
                except json.JSONDecodeError:
                    args = {}
            if isinstance(name, str):
                found.append((name, args if isinstance(args, dict) else {}))
    return found


class _ArgumentSource:
    """Arguments of one agent's executed tool calls, matched in order by tool name."""

    def __init__(self, histories: list[list[tuple[str, dict[str, Any]]]]) -> None:
        # Each conversation's longest history holds all its calls; conversations in time order.
        self.queue: list[tuple[str, dict[str, Any]]] = [c for h in histories for c in h]
        self.missing = 0

    def take(self, tool: str, recorded: Any) -> dict[str, Any]:
        if isinstance(recorded, str) and recorded:
            try:
                value = json.loads(recorded)
                if isinstance(value, dict):
                    self._drop(tool)
                    return value
            except json.JSONDecodeError:
                pass
        return self._drop(tool)

    def _drop(self, tool: str) -> dict[str, Any]:
        for i, (name, args) in enumerate(self.queue):
            if name == tool:
                del self.queue[: i + 1]
                return args
        self.missing += 1
        return {}


def _conversations(
    requests: list[tuple[float, list[dict[str, Any]]]],
) -> list[list[tuple[str, dict[str, Any]]]]:
    """Split one agent's requests into conversations (a history that does not extend the
    previous request's starts a new one) and keep each conversation's last history."""
    out: list[list[dict[str, Any]]] = []
    for _, messages in requests:
        if out and len(messages) >= len(out[-1]) and messages[: len(out[-1])] == out[-1]:
            out[-1] = messages
        else:
            out.append(messages)
    return [_calls_in_history(m) for m in out]


class _Builder:
    def __init__(
        self,
        attempt: _Attempt,
        prompts: dict[str, Any],
        raw: dict[Any, Any],
        sub_agent: SubAgentMemory = SubAgentMemory.FRESH,
    ) -> None:
        self.a = attempt
        self.prompts = prompts
        self.raw = raw
        self.missing_arguments = 0
        self.sub_agent = sub_agent
        # a persistent sub-agent's history after its last delegation (None: none yet)
        self.sub_history: int | None = None

    def _system_tokens(self, agent: str, prompt_name: str) -> int:
        """The system prompt's size: from the system message the agent actually sent (the
        raw requests), else from the prompt recorded in run.json, else today's prompt file."""
        text = ""
        for _, messages in self.raw.get((self.a.task, self.a.attempt, agent), [])[:1]:
            first = messages[0] if messages else {}
            if isinstance(first, dict) and first.get("role") == "system":
                text = str(first.get("content") or "")
        if not text:
            entry = self.prompts.get(prompt_name)
            text = str(entry.get("text", "")) if isinstance(entry, dict) else ""
        if not text:
            try:
                text = system_prompt(prompt_name)
            except OSError:
                text = ""
        return _estimate_tokens(text)

    def _arguments(self, agent: str) -> _ArgumentSource:
        requests = self.raw.get((self.a.task, self.a.attempt, agent), [])
        return _ArgumentSource(_conversations(requests))

    def build(self) -> Trajectory:
        plan = plan_for(self.a.architecture)
        lead = plan.lead
        calls = self.a.calls[(self.a.calls["agent"] == lead.agent) & (self.a.calls["error_class"] == "")]
        windows: list[tuple[str, float, float]] = [
            (str(m["kind"]), float(m["t_start"]), float(m["t_end"]))
            for m in self.a.messages.to_dict("records")
        ]
        helper_calls = pd.DataFrame()
        helper_tools = pd.DataFrame()
        if plan.helper is not None:
            helper_calls = self.a.calls[
                (self.a.calls["agent"] == plan.helper.agent) & (self.a.calls["error_class"] == "")
            ]
            helper_tools = self.a.tools[self.a.tools["agent"] == plan.helper.agent]
        if plan.helper is not None and plan.helper.agent == lead.agent:
            raise AgbenchError(f"architecture {self.a.architecture}: lead and helper share a label")
        lead_tools = self.a.tools[self.a.tools["agent"] == lead.agent]
        args = self._arguments(lead.agent)
        sub_args = self._arguments(plan.helper.agent) if plan.helper is not None else None
        turns = self._turns(calls, lead_tools, args, windows, helper_calls, helper_tools, sub_args)
        self.missing_arguments += args.missing + (sub_args.missing if sub_args else 0)
        return Trajectory(
            task=self.a.task,
            architecture=self.a.architecture,
            agent="lead",
            system_prompt_tokens=min(self._system_tokens(lead.agent, lead.prompt), _first_prompt(calls)),
            turns=turns,
            answer=str(self.a.row.get("answer") or ""),
            category=str(self.a.row.get("category") or ""),
            recorded_status=str(self.a.row.get("status") or ""),
        )

    def _turns(
        self,
        calls: pd.DataFrame,
        tools: pd.DataFrame,
        args: _ArgumentSource,
        windows: list[tuple[str, float, float]],
        helper_calls: pd.DataFrame,
        helper_tools: pd.DataFrame,
        sub_args: _ArgumentSource | None,
        system_tokens: int | None = None,
    ) -> list[Turn]:
        rows = calls.to_dict("records")
        if system_tokens is None:
            plan = plan_for(self.a.architecture)
            system_tokens = min(self._system_tokens(plan.lead.agent, plan.lead.prompt), _first_prompt(calls))
        turns: list[Turn] = []
        previous_end = float(rows[0]["t_start"]) if rows else 0.0
        history = system_tokens
        tool_rows = tools.to_dict("records") if not tools.empty else []
        for i, row in enumerate(rows):
            t0 = float(row["t_start"])
            t1 = float(rows[i + 1]["t_start"]) if i + 1 < len(rows) else math.inf
            end = t0 + float(row["total_s"])
            prompt = int(row["prompt_tokens"])
            turn = Turn(
                endpoint=str(row["endpoint"]),
                prompt_tokens_added=max(1, prompt - history),
                output_tokens=max(1, int(row["completion_tokens"])),
                think_s=max(0.0, t0 - previous_end) if i else 0.0,
            )
            history = prompt + int(row["completion_tokens"])
            step_end = end
            for tool in tool_rows:
                if t0 <= float(tool["t_start"]) < t1:
                    turn.tools.append(
                        ToolStep(
                            tool=str(tool["tool"]),
                            arguments=args.take(str(tool["tool"]), tool.get("arguments")),
                            wall_s=float(tool["wall_s"]),
                            cpu_s=float(tool["cpu_s"]),
                            output_tokens=math.ceil(int(tool["bytes_out"]) / BYTES_PER_TOKEN),
                        )
                    )
                    step_end = max(step_end, float(tool["t_start"]) + float(tool["wall_s"]))
            for kind, w0, w1 in windows:
                if not t0 <= w0 < t1:
                    continue
                inside = helper_calls[(helper_calls["t_start"] >= w0) & (helper_calls["t_start"] <= w1)]
                if kind == MessageKind.CONSULT and not inside.empty and turn.consult is None:
                    c = inside.iloc[0]
                    turn.consult = Turn(
                        endpoint=str(c["endpoint"]),
                        prompt_tokens_added=int(c["prompt_tokens"]),
                        output_tokens=max(1, int(c["completion_tokens"])),
                    )
                elif kind == MessageKind.DELEGATE and turn.delegate is None and sub_args is not None:
                    sub_tools = (
                        helper_tools[(helper_tools["t_start"] >= w0) & (helper_tools["t_start"] <= w1)]
                        if not helper_tools.empty
                        else helper_tools
                    )
                    turn.delegate = self._sub(inside, sub_tools, sub_args)
                step_end = max(step_end, w1)
            previous_end = step_end
            turns.append(turn)
        return turns

    def _sub(self, calls: pd.DataFrame, tools: pd.DataFrame, args: _ArgumentSource) -> Trajectory:
        plan = plan_for(self.a.architecture)
        assert plan.helper is not None
        system_tokens = min(self._system_tokens(plan.helper.agent, plan.helper.prompt), _first_prompt(calls))
        carried = self.sub_history if self.sub_agent is SubAgentMemory.PERSISTENT else None
        start = carried if carried is not None else system_tokens
        turns = self._turns(calls, tools, args, [], pd.DataFrame(), pd.DataFrame(), None, start)
        if not calls.empty:
            last = calls.iloc[-1]
            self.sub_history = int(last["prompt_tokens"]) + int(last["completion_tokens"])
        return Trajectory(
            task=self.a.task,
            architecture=self.a.architecture,
            agent="sub",
            system_prompt_tokens=system_tokens,
            turns=turns,
            answer="",
            category=str(self.a.row.get("category") or ""),
        )


def _first_prompt(calls: pd.DataFrame) -> int:
    if calls.empty:
        return 0
    return max(0, int(calls.iloc[0]["prompt_tokens"]) - 1)


def _attempts(store: RunStore) -> Iterator[_Attempt]:
    tables = store.tables()
    chosen = _choose_attempts(tables["task_runs"])
    calls = _final_tries(tables["model_calls"])
    tools = tables["tool_calls"]
    messages = tables["messages"]
    for record in chosen.to_dict("records"):
        row = {str(k): v for k, v in record.items()}

        def of(df: pd.DataFrame, row: dict[str, Any] = row) -> pd.DataFrame:
            if df.empty:
                return df
            mask = (
                (df["task"] == row["task"])
                & (df["architecture"] == row["architecture"])
                & (df["concurrency"] == row["concurrency"])
                & (df["attempt"] == row["attempt"])
            )
            selected: pd.DataFrame = df[mask].sort_values("t_start")
            return selected

        yield _Attempt(
            task=str(row["task"]),
            architecture=str(row["architecture"]),
            concurrency=int(row["concurrency"]),
            attempt=int(row["attempt"]),
            row=row,
            calls=of(calls),
            tools=of(tools),
            messages=of(messages),
        )


def extract(run_dir: Path) -> TrajectorySet:
    """The agent behaviour of a live run directory as a trajectory set (source ``extracted``)."""
    store = RunStore.open(run_dir)
    meta = store.run_meta()
    if meta.source is not RunSource.LIVE:
        raise AgbenchError(f"{run_dir} is a {meta.source.value} run; trajectories come from live runs")
    prompts = meta.prompts
    sub_agent = recorded_sub_agent(meta.options)
    raw = _raw_histories(run_dir)
    trajectories: list[Trajectory] = []
    missing = 0
    for attempt in _attempts(store):
        try:
            Architecture(attempt.architecture)
        except ValueError:
            continue
        builder = _Builder(attempt, prompts if isinstance(prompts, dict) else {}, raw, sub_agent)
        trajectories.append(builder.build())
        missing += builder.missing_arguments
    if not trajectories:
        raise AgbenchError(f"{run_dir} has no finished task attempt to extract")
    trajectories.sort(key=lambda t: (t.task, t.architecture))
    header = {
        "run_dir": str(run_dir),
        "run_id": meta.run_id,
        "agent_kind": meta.agent_kind,
        "device": meta.device,
        "tool_calls_without_arguments": missing,
        "hcl_sub_agent": sub_agent.value,  # how the run's HCL sub-agent behaved
    }
    return TrajectorySet(source="extracted", trajectories=trajectories, profile=header)


__all__ = ["extract"]
