"""One task's agents as a SimPy process: follow a trajectory closed-loop under a policy.

Every wait (think time, a local request, a cloud call, a tool) is one event the agent yields
on; the task deadline can cut any of them short, freeing the slot or CPU it held, as the live
harness does when it kills a task at its time limit.
"""

from __future__ import annotations

import random
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

import simpy

from agbench.records import Exposure, Message, ModelCall, TaskRun, ToolCall
from agbench.sim.agents.policies import hll_hands_over_to_cloud, redelegates, stops_on_local_context_error
from agbench.sim.entities.cloud import CloudAPI, CloudReply
from agbench.sim.entities.cpu import ProcessorSharingCPU
from agbench.sim.entities.local_server import LocalRequest, LocalServer
from agbench.sim.profiles import Profile
from agbench.sim.workloads.base import SimTask
from agbench.trajectory import ToolStep, Trajectory, Turn

OK, CONTEXT, DEADLINE = "ok", "context_limit", "deadline"
# What the generic "delegation failed" tool result adds to the cloud lead's history.
FAILURE_REPORT_TOKENS = 40
Proc = Generator[simpy.Event, Any, str]


@dataclass
class SimWorld:
    """What the agents of one configuration share."""

    env: simpy.Environment
    profile: Profile
    server: LocalServer | None
    cpu: ProcessorSharingCPU
    cloud: CloudAPI
    run_id: str
    device: str
    arch: str
    concurrency: int
    seed: int
    records: list[Any] = field(default_factory=list)
    cloud_server: LocalServer | None = None  # the cloud stand-in (CloudProfile.standin_local)


@dataclass(eq=False)
class TaskState:
    task: SimTask
    attempt: int
    t_start: float
    deadline: float
    rng: random.Random
    current: tuple[str, Any, simpy.Event] | None = None
    expired: bool = False
    finished: bool = False
    local_model_s: float = 0.0
    cloud_model_s: float = 0.0
    tools_s: float = 0.0
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    cloud_prompt: int = 0
    cloud_cached: int = 0
    cloud_completion: int = 0
    cloud_cost: float = 0.0
    cloud_calls: int = 0
    model_calls: int = 0
    tool_calls: int = 0
    local_context_errors: int = 0
    exposed: int = 0
    exposure_drawn: bool = False
    delegation_abandoned: bool = False
    failed_turn: int | None = None
    calls: int = 0


class TaskAgent:
    """Runs one task attempt of one architecture; ``process()`` is the SimPy generator."""

    def __init__(
        self, world: SimWorld, task: SimTask, trajectory: Trajectory | None, attempt: int = 1
    ) -> None:
        self.w = world
        self.task = task
        self.traj = trajectory
        self.attempt = attempt

    # ---- waits the deadline can interrupt ------------------------------------------------
    def _sleep(self, st: TaskState, seconds: float) -> simpy.Event:
        """A wait that holds nothing: it simply ends at the deadline if that comes first
        (one event, where an interruptible wait would need two)."""
        left = st.deadline - self.w.env.now
        st.current = None
        if seconds >= left:
            st.expired = True  # nothing else happens for this task before the deadline
            return self.w.env.timeout(max(0.0, left))
        return self.w.env.timeout(seconds)

    def _expire(self, st: TaskState) -> None:
        if st.finished or st.current is None:
            st.expired = True
            return
        st.expired = True
        kind, obj, ev = st.current
        if kind == "local" and self.w.server is not None:
            self.w.server.cancel(obj)
        elif kind == "standin" and self.w.cloud_server is not None:
            self.w.cloud_server.cancel(obj)
        elif kind == "cpu":
            self.w.cpu.cancel(ev)
        if not ev.triggered:
            ev.succeed(None)

    # ---- the task ------------------------------------------------------------------------
    def process(self) -> Generator[simpy.Event, Any, None]:
        env, w = self.w.env, self.w
        b = w.profile.behaviour
        st = TaskState(
            self.task,
            self.attempt,
            env.now,
            env.now + b.deadline_s,
            random.Random(f"{w.seed}|{self.task.task}|{w.arch}|run"),
        )
        deadline = env.timeout(b.deadline_s)
        deadline.callbacks.append(lambda _e: self._expire(st))
        status, reason = "success", ""
        if self.traj is None:
            status, reason = "failed_missing_assets", f"no trajectory for {self.task.task} under {w.arch}"
        else:
            if b.harness_overhead_s > 0:
                yield self._sleep(st, b.harness_overhead_s * b.setup_share)  # sandbox setup
            outcome = OK if st.expired else (yield from self._agent(st, self.traj, "lead", ("lead", 0)))
            if outcome == DEADLINE or st.expired:
                status, reason = "timeout", f"task deadline {b.deadline_s:g} s reached"
            elif outcome == CONTEXT:
                status, reason = "context_limit", "local server refused for context"
            elif st.delegation_abandoned:
                status, reason = b.hcl_failed_delegation_status, "delegated work failed; lead gave up"
            else:
                status = self.traj.recorded_status or "success"
            if not st.expired and b.harness_overhead_s > 0:
                yield self._sleep(st, b.harness_overhead_s * (1.0 - b.setup_share))  # verification
        st.finished = True
        t_end = min(env.now, st.deadline)
        wall = t_end - st.t_start
        w.records.append(
            TaskRun(
                run_id=w.run_id,
                device=w.device,
                architecture=w.arch,
                concurrency=w.concurrency,
                agent_kind="",  # filled by the engine (sim-replay / sim-synthetic)
                task=self.task.task,
                category=self.task.category,
                attempt=self.attempt,
                t_start=st.t_start,
                t_end=t_end,
                status=status,
                reward=1.0 if status == "success" else 0.0,
                reason=reason,
                difficulty=self.task.difficulty,
                local_model_s=st.local_model_s,
                cloud_model_s=st.cloud_model_s,
                tools_s=st.tools_s,
                other_s=max(0.0, wall - st.local_model_s - st.cloud_model_s - st.tools_s),
                prompt_tokens=st.prompt_tokens,
                cached_tokens=st.cached_tokens,
                completion_tokens=st.completion_tokens,
                cloud_prompt_tokens=st.cloud_prompt,
                cloud_cached_tokens=st.cloud_cached,
                cloud_completion_tokens=st.cloud_completion,
                cloud_cost_usd=st.cloud_cost,
                cloud_calls=st.cloud_calls,
                model_calls=st.model_calls,
                tool_calls=st.tool_calls,
                sensitive_total=self.task.sensitive_items,
                sensitive_exposed=st.exposed,
                local_context_errors=st.local_context_errors,
                answer=self.traj.answer if self.traj is not None else "",
            )
        )

    def _agent(
        self, st: TaskState, traj: Trajectory, role: str, conv: tuple[str, int], start: int = 0
    ) -> Proc:
        """Follow one agent's turns from ``start``; returns OK, CONTEXT (its own context
        error; ``st.failed_turn`` says where) or DEADLINE.

        Same order and token accounting as the live replay agent (live/replay.py): the history
        starts at the system prompt, each turn adds ``prompt_tokens_added`` then its output;
        after the reply come the tools, then a delegation, then a consultation. An agent
        resumed at ``start`` > 0 (a re-delegated sub-agent) begins a fresh history whose
        first turn reads the original instruction (``turns[0].prompt_tokens_added``).
        """
        w = self.w
        conv_key = (self.task.task, self.attempt, conv)
        sys_key = (w.arch, role)
        history = traj.system_prompt_tokens
        previous_prompt = 0
        for index in range(start, len(traj.turns)):
            turn = traj.turns[index]
            added = (
                traj.turns[0].prompt_tokens_added
                if index == start and start > 0
                else turn.prompt_tokens_added
            )
            if turn.think_s > 0:
                yield self._sleep(st, turn.think_s)
                if st.expired:
                    return DEADLINE
            elif w.profile.behaviour.turn_gap_s > 0 and not (yield from self._harness_gap(st)):
                return DEADLINE
            prompt = history + added
            if turn.endpoint == "local":
                result = yield from self._local_call(
                    st, role, conv_key, sys_key, traj.system_prompt_tokens, prompt, turn
                )
                if result is None:
                    return DEADLINE
                if result.error_class:
                    st.local_context_errors += 1
                    st.failed_turn = index
                    if (
                        w.arch == "HLL"
                        and role == "lead"
                        and hll_hands_over_to_cloud(st.rng, w.profile.behaviour)
                    ):
                        return OK
                    if stops_on_local_context_error(w.arch, w.profile.behaviour):
                        return CONTEXT
                out = result.completion_tokens
            else:
                ok = yield from self._cloud_call(
                    st,
                    role,
                    prompt,
                    turn.output_tokens,
                    previous_prompt,
                    traj.system_prompt_tokens,
                    conv_key,
                    sys_key,
                )
                if not ok:
                    return DEADLINE
                out = turn.output_tokens
            previous_prompt = prompt
            history = prompt + out
            for step in turn.tools:
                if not (yield from self._tool(st, role, step)):
                    return DEADLINE
            if turn.delegate is not None:
                outcome, grown = yield from self._delegate(st, turn, turn.delegate, history)
                if outcome != OK:
                    return outcome
                history = grown
            if turn.consult is not None:
                outcome = yield from self._consult(st, turn.consult)
                if outcome != OK:
                    return outcome
        return OK

    def _local_call(
        self,
        st: TaskState,
        role: str,
        conv_key: object,
        sys_key: object,
        sys_tokens: int,
        prompt: int,
        turn: Turn,
    ) -> Generator[simpy.Event, Any, LocalRequest | None]:
        w = self.w
        assert w.server is not None, "a local turn in an architecture without a local server"
        t0 = w.env.now
        overhead = w.profile.server.request_overhead_s
        if overhead > 0:
            yield self._sleep(st, overhead)
            if st.expired:
                return None
        req = w.server.submit(conv_key, sys_key, sys_tokens, prompt, turn.output_tokens)
        if overhead <= 0:
            t0 = req.t_arrive
        st.current = ("local", req, req.done)
        yield req.done
        if st.expired:
            return None
        st.calls += 1
        st.model_calls += 1
        total = (req.t_done or w.env.now) - t0
        st.local_model_s += total
        st.prompt_tokens += prompt
        st.cached_tokens += req.cached
        st.completion_tokens += req.completion_tokens
        decode_s = (
            (req.t_done - req.t_first) if (req.t_first is not None and req.t_done is not None) else None
        )
        w.records.append(
            self._model_call(
                st,
                "local" if role == "lead" else "local-sub",
                "local",
                t0,
                ttft_s=(req.t_first - t0) if req.t_first is not None else None,
                total_s=total,
                prompt_tokens=prompt,
                cached_tokens=req.cached,
                completion_tokens=req.completion_tokens,
                output_tok_s=(req.completion_tokens / decode_s) if decode_s else None,
                prompt_ms=((req.t_first - req.t_slot) * 1000)
                if (req.t_first is not None and req.t_slot is not None)
                else None,
                predicted_ms=decode_s * 1000 if decode_s is not None else None,
                finish_reason=req.finish_reason,
                error_class=req.error_class,
                status_code=req.status_code,
                slot_id=req.slot.index if req.slot is not None else None,
            )
        )
        return req

    def _harness_gap(self, st: TaskState) -> Generator[simpy.Event, Any, bool]:
        """The harness's own time before a model request (sizing it, the proxy): a wait whose
        CPU part runs on the shared cores, so it stretches when they are busy."""
        w = self.w
        b = w.profile.behaviour
        cpu_s = min(b.turn_gap_cpu_s, b.turn_gap_s)
        if cpu_s > 0:
            ev = w.cpu.run(cpu_s, 1.0)
            st.current = ("cpu", None, ev)
            yield ev
            if st.expired:
                return False
        rest = b.turn_gap_s - cpu_s
        if rest > 0:
            yield self._sleep(st, rest)
        return not st.expired

    def _standin_reply(
        self, st: TaskState, prompt: int, output: int, conv_key: object, sys_key: object, sys_tokens: int
    ) -> Generator[simpy.Event, Any, CloudReply | None]:
        """A "cloud" call served by the stand-in llama-server (CloudProfile.standin_local)."""
        server = self.w.cloud_server
        assert server is not None
        t0 = self.w.env.now
        overhead = self.w.profile.server.request_overhead_s
        if overhead > 0:
            yield self._sleep(st, overhead)
            if st.expired:
                return None
        req = server.submit(conv_key, ("cloud", sys_key), sys_tokens, prompt, output)
        st.current = ("standin", req, req.done)
        yield req.done
        if st.expired:
            return None
        t_done = req.t_done if req.t_done is not None else self.w.env.now
        ttft = (req.t_first - t0) if req.t_first is not None else t_done - t0
        cost = self.w.profile.cloud.prices.cost(prompt, req.cached, req.completion_tokens)
        return CloudReply(ttft, t_done - t0, prompt, req.cached, req.completion_tokens, cost)

    def _cloud_call(
        self,
        st: TaskState,
        role: str,
        prompt: int,
        output: int,
        previous_prompt: int,
        sys_tokens: int,
        conv_key: object = None,
        sys_key: object = None,
    ) -> Generator[simpy.Event, Any, bool]:
        w = self.w
        t0 = w.env.now
        if w.cloud_server is not None:
            self._draw_exposure(st, t0)
            key = conv_key if conv_key is not None else (self.task.task, self.attempt, role, st.calls)
            standin = yield from self._standin_reply(st, prompt, output, key, sys_key, sys_tokens)
            if standin is None:
                return False
            reply = standin
            output = reply.completion_tokens
        else:
            reply = w.cloud.call(st.rng, prompt, output, previous_prompt, sys_tokens)
            self._draw_exposure(st, t0)
            yield self._sleep(st, reply.total_s)
            if st.expired:
                return False
        st.calls += 1
        st.model_calls += 1
        st.cloud_calls += 1
        st.cloud_model_s += reply.total_s
        st.cloud_prompt += prompt
        st.cloud_cached += reply.cached_tokens
        st.cloud_completion += output
        st.cloud_cost += reply.cost_usd
        w.records.append(
            self._model_call(
                st,
                "cloud" if role == "lead" else "cloud-consult",
                "cloud",
                t0,
                ttft_s=reply.ttft_s,
                total_s=reply.total_s,
                prompt_tokens=prompt,
                cached_tokens=reply.cached_tokens,
                completion_tokens=output,
                output_tok_s=output / (reply.total_s - reply.ttft_s)
                if reply.total_s > reply.ttft_s
                else None,
                finish_reason="stop",
                status_code=200,
                cost_usd=reply.cost_usd,
            )
        )
        return True

    def _model_call(self, st: TaskState, agent: str, endpoint: str, t0: float, **figures: Any) -> ModelCall:
        """A ModelCall row for this attempt (the identity fields; the caller gives the figures)."""
        w = self.w
        return ModelCall(
            run_id=w.run_id,
            device=w.device,
            architecture=w.arch,
            concurrency=w.concurrency,
            task=self.task.task,
            attempt=self.attempt,
            agent=agent,
            endpoint=endpoint,
            call_id=f"{self.task.task}-{st.calls}",
            t_start=t0,
            **figures,
        )

    def _draw_exposure(self, st: TaskState, t: float) -> None:
        """Which sensitive items reach the cloud: drawn once, at the task's first cloud input."""
        if st.exposure_drawn:
            return
        st.exposure_drawn = True
        w = self.w
        p = w.profile.behaviour.exposure_p.get(w.arch, 0.0)
        for i in range(self.task.sensitive_items):
            if st.rng.random() < p:
                st.exposed += 1
                w.records.append(
                    Exposure(
                        w.run_id,
                        w.device,
                        w.arch,
                        w.concurrency,
                        self.task.task,
                        self.attempt,
                        f"item-{i + 1}",
                        t,
                        "request",
                    )
                )

    def _consult(self, st: TaskState, consult: Turn) -> Proc:
        t0 = self.w.env.now
        prefix = self.w.profile.cloud.consult_prefix_tokens
        ok = yield from self._cloud_call(
            st,
            "consult",
            consult.prompt_tokens_added,
            consult.output_tokens,
            0,
            prefix,
            None,
            (self.w.arch, "consult") if prefix > 0 else None,
        )
        self._message(
            st, "consult", "local", "cloud", t0, consult.prompt_tokens_added, consult.output_tokens, ok
        )
        return OK if ok else DEADLINE

    def _delegate(
        self, st: TaskState, lead_turn: Turn, sub: Trajectory, lead_history: int
    ) -> Generator[simpy.Event, Any, tuple[str, int]]:
        """HCL: run the sub-agent; returns (outcome, the lead's history afterwards).

        A failed sub-agent reaches the cloud lead as a generic failure (its report); the lead
        then takes one more turn to write a new delegation (``hcl_redelegate_p``, at most
        ``hcl_redelegate_max`` times) and a fresh sub-agent resumes at the turn that failed,
        as the live replay agent does; otherwise the lead gives up on the delegated work.
        """
        failures = 0
        progress = 0
        report = sub.turns[-1].output_tokens if sub.turns else 0
        instruction = sub.turns[0].prompt_tokens_added if sub.turns else 0
        while True:
            t0 = self.w.env.now
            st.failed_turn = None
            outcome = yield from self._agent(st, sub, "sub", ("sub", st.calls), start=progress)
            self._message(st, "delegate", "cloud", "local-sub", t0, instruction, report, outcome == OK)
            if outcome in (OK, DEADLINE):
                return outcome, lead_history
            failures += 1
            if not redelegates(st.rng, self.w.profile.behaviour, failures):
                st.delegation_abandoned = True
                return OK, lead_history
            progress = st.failed_turn if st.failed_turn is not None else progress
            prompt = lead_history + FAILURE_REPORT_TOKENS
            lead_conv = (self.task.task, self.attempt, ("lead", 0))
            ok = yield from self._cloud_call(
                st, "lead", prompt, lead_turn.output_tokens, lead_history, 0, lead_conv, (self.w.arch, "lead")
            )
            if not ok:
                return DEADLINE, lead_history
            lead_history = prompt + lead_turn.output_tokens

    def _message(
        self,
        st: TaskState,
        kind: str,
        sender: str,
        receiver: str,
        t0: float,
        req_tokens: int,
        resp_tokens: int,
        ok: bool,
    ) -> None:
        w = self.w
        w.records.append(
            Message(
                w.run_id,
                w.device,
                w.arch,
                w.concurrency,
                self.task.task,
                self.attempt,
                kind,
                sender,
                receiver,
                t0,
                w.env.now,
                request_bytes=req_tokens * 4,  # ~4 bytes per token of English text
                response_bytes=resp_tokens * 4,
                request_tokens=req_tokens,
                response_tokens=resp_tokens,
                ok=ok,
            )
        )
        if kind == "delegate":
            self._draw_exposure(st, w.env.now)

    def _tool(self, st: TaskState, role: str, step: ToolStep) -> Generator[simpy.Event, Any, bool]:
        w = self.w
        tp = w.profile.tools
        t0 = w.env.now
        recorded_wall, recorded_cpu = step.wall_s, step.cpu_s
        if recorded_wall <= 0 and recorded_cpu <= 0 and step.tool in tp.wall_s_by_tool:
            recorded_wall = tp.wall_s_by_tool[step.tool]  # a synthesised step: the fitted time
            recorded_cpu = tp.cpu_s_by_tool.get(step.tool, 0.0)
        wall = recorded_wall * tp.wall_scale
        cpu_s = recorded_cpu * tp.wall_scale if recorded_cpu > 0 else wall * tp.default_cpu_fraction
        if wall <= 0 and cpu_s <= 0:
            ev = self._sleep(st, 0.0)
        elif cpu_s <= 1e-6 * max(1.0, wall):  # no CPU to speak of: it only waits
            ev = self._sleep(st, wall)
        else:
            demand = min(tp.max_cores_per_tool, cpu_s / wall) if wall > 0 else tp.max_cores_per_tool
            ev = w.cpu.run(cpu_s, demand)
            st.current = ("cpu", None, ev)
        yield ev
        if st.expired:
            return False
        took = w.env.now - t0
        st.tools_s += took
        st.tool_calls += 1
        w.records.append(
            ToolCall(
                w.run_id,
                w.device,
                w.arch,
                w.concurrency,
                self.task.task,
                self.attempt,
                "local" if role == "lead" else "local-sub",
                f"{self.task.task}-t{st.tool_calls}",
                step.tool,
                t0,
                wall_s=took,
                cpu_s=cpu_s,
                bytes_out=step.output_tokens * 4,
            )
        )
        return True


__all__ = ["CONTEXT", "DEADLINE", "OK", "SimWorld", "TaskAgent", "TaskState"]
