"""One task's agents as a SimPy process: follow a trajectory closed-loop under a policy.

Every wait (think time, a local request, a cloud call, a tool) is one event the agent yields
on; the task deadline can cut any of them short, freeing the slot or CPU it held, as the live
harness does when it kills a task at its time limit. What is *recorded* about each step (the
trace rows, the attempt's counters, its ``task_runs`` row) is ``attempt_record``'s job, in
the core's vocabulary; this module only decides what happens and when.
"""

from __future__ import annotations

import random
from collections.abc import Generator
from enum import StrEnum
from typing import Any

import simpy

from agbench.attempt import AgentLabel, Endpoint, MessageKind
from agbench.config import Architecture
from agbench.sim.agents.attempt_record import BYTES_PER_TOKEN, AttemptRecord, SimRole
from agbench.sim.agents.policies import hll_hands_over_to_cloud, redelegates, stops_on_local_context_error
from agbench.sim.agents.timing_jitter import TimingJitter
from agbench.sim.agents.world import SimWorld, TaskState
from agbench.sim.entities.cpu import HARNESS
from agbench.sim.entities.local_server import LocalRequest, LocalServer
from agbench.sim.workloads.base import SimTask
from agbench.status import Status
from agbench.task import task_deadline_s
from agbench.trajectory import ToolStep, Trajectory, Turn


class Outcome(StrEnum):
    """How an agent's run of turns ended (not a status: the task's status follows from it)."""

    OK = "ok"
    CONTEXT = "context"  # its own local context error stopped it
    CLOUD_CONTEXT = "cloud context"  # a cloud call the stand-in refused for context stopped it
    DEADLINE = "deadline"


OK, CONTEXT, CLOUD_CONTEXT, DEADLINE = Outcome.OK, Outcome.CONTEXT, Outcome.CLOUD_CONTEXT, Outcome.DEADLINE
# What the generic "delegation failed" tool result adds to the cloud lead's history.
FAILURE_REPORT_TOKENS = 40
Proc = Generator[simpy.Event, Any, Outcome]
LOCAL_ENDPOINT = Endpoint.LOCAL.value  # a turn's endpoint, as trajectories spell it


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
        if kind == "slot" and self.w.server is not None:
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
            AttemptRecord(w.scope.attempt(self.task.task, self.attempt), w.records),
            env.now,
            env.now + (limit := task_deadline_s(self.task.time_limit_s, b.deadline_s)),
            random.Random(f"{w.seed}|{self.task.task}|{w.arch}|run"),
            TimingJitter(w.jitter, f"{w.seed}|{self.task.task}|{w.arch}|{self.attempt}"),
        )
        deadline = env.timeout(limit)
        deadline.callbacks.append(lambda _e: self._expire(st))
        status, reason = Status.SUCCESS, ""
        if self.traj is None:
            status, reason = (
                Status.FAILED_MISSING_ASSETS,
                f"no trajectory for {self.task.task} under {w.arch}",
            )
        else:
            if b.harness_overhead_s > 0:
                setup = b.harness_overhead_s * b.setup_share * st.jitter.factor(b.harness_overhead_cv)
                yield self._sleep(st, setup)  # sandbox setup
            outcome = OK if st.expired else (yield from self._agent(st, self.traj, SimRole.LEAD, ("lead", 0)))
            if outcome == DEADLINE or st.expired:
                status, reason = Status.TIMEOUT, f"task deadline {limit:g} s reached"
            elif outcome == CONTEXT:
                status, reason = Status.CONTEXT_LIMIT, "local server refused for context"
            elif outcome == CLOUD_CONTEXT:
                status, reason = Status.CONTEXT_LIMIT, "cloud model call failed: context_limit"
            elif st.delegation_abandoned:
                status = Status(b.hcl_failed_delegation_status)
                reason = "delegated work failed; lead gave up"
            else:
                status = Status(self.traj.recorded_status or Status.SUCCESS)
            if not st.expired and b.harness_overhead_s > 0:
                verify = (
                    b.harness_overhead_s * (1.0 - b.setup_share) * st.jitter.factor(b.harness_overhead_cv)
                )
                yield self._sleep(st, verify)  # verification
        st.finished = True
        st.record.task_run(
            agent_kind=w.agent_kind,
            category=self.task.category,
            difficulty=self.task.difficulty,
            t_start=st.t_start,
            t_end=min(env.now, st.deadline),
            status=status,
            reason=reason,
            sensitive_total=self.task.sensitive_items,
            answer=self.traj.answer if self.traj is not None else "",
        )

    def _conv_key(self, conv: tuple[str, int]) -> object:
        """A conversation's identity on a server: its text. Replayed again (another attempt; a
        configuration on a server the last one left running) it is the same tokens, and a
        server that kept it (a slot, the prompt cache) serves its prefix from there, as live
        (entities/server_state.py)."""
        return (self.w.arch, self.task.task, conv)

    def _agent(
        self, st: TaskState, traj: Trajectory, role: SimRole, conv: tuple[str, int], start: int = 0
    ) -> Proc:
        """Follow one agent's turns from ``start``; returns OK, CONTEXT (its own context
        error; ``st.failed_turn`` says where) or DEADLINE.

        Same order and token accounting as the live replay agent (live/replay.py): the history
        starts at the system prompt, each turn adds ``prompt_tokens_added`` then its output;
        after the reply come the tools, then a delegation, then a consultation. A delegation's
        first turn reads its instruction (``turns[0].prompt_tokens_added``): a persistent
        sub-agent (``BehaviourProfile.hcl_sub_agent``) appends it to the history it kept from
        earlier delegations (``st.sub_history``; after a context error, the prompt that
        failed); a fresh one starts from the system prompt, and when resumed at ``start`` > 0
        (a re-delegation) its first turn reads the instruction in place of that turn's own.
        """
        w = self.w
        persistent = role is SimRole.SUB and w.persistent_sub
        conv_key = self._conv_key(conv)
        sys_key = (w.arch, role)
        carried = persistent and st.sub_history > 0
        history = st.sub_history if carried else traj.system_prompt_tokens
        previous_prompt = 0
        for index in range(start, len(traj.turns)):
            turn = traj.turns[index]
            added = (
                traj.turns[0].prompt_tokens_added
                if index == start and (start > 0 or carried)
                else turn.prompt_tokens_added
            )
            if turn.think_s > 0:
                yield self._sleep(st, turn.think_s)
                if st.expired:
                    return DEADLINE
            elif w.profile.behaviour.turn_gap_s > 0 and not (yield from self._harness_gap(st)):
                return DEADLINE
            prompt = history + added
            if turn.endpoint == LOCAL_ENDPOINT:
                asked = self._capped(turn.output_tokens, LOCAL_ENDPOINT)
                result = yield from self._local_call(
                    st, role, conv_key, sys_key, traj.system_prompt_tokens, prompt, asked
                )
                if result is None:
                    return DEADLINE
                if result.client_error_class:  # a context error (counted by the record)
                    stop = self._on_context_error(st, role, index, prompt, persistent)
                    if stop is not None:
                        return stop
                # what a token cap cut is still in the history: the replay agent pads to it
                out = result.completion_tokens + turn.output_tokens - asked
            else:
                called = yield from self._cloud_call(
                    st,
                    role,
                    prompt,
                    turn.output_tokens,
                    previous_prompt,
                    traj.system_prompt_tokens,
                    conv_key,
                    sys_key,
                )
                if called != OK:
                    return called
                out = turn.output_tokens
            previous_prompt = prompt
            history = prompt + out
            if persistent:
                st.sub_history = history
            outcome, history = yield from self._after_reply(st, role, turn, history)
            if outcome != OK:
                return outcome
        return OK

    def _on_context_error(
        self, st: TaskState, role: SimRole, index: int, prompt: int, persistent: bool
    ) -> Outcome | None:
        """A local turn refused for context: the outcome that ends the agent (None: go on)."""
        w = self.w
        st.failed_turn = index
        if persistent:  # the agent keeps the history it could not send
            st.sub_history = prompt
        if (
            w.architecture is Architecture.HLL
            and role is SimRole.LEAD
            and hll_hands_over_to_cloud(st.rng, w.profile.behaviour)
        ):
            return OK
        if stops_on_local_context_error(w.architecture, w.profile.behaviour):
            return CONTEXT
        return None

    def _after_reply(
        self, st: TaskState, role: SimRole, turn: Turn, history: int
    ) -> Generator[simpy.Event, Any, tuple[Outcome, int]]:
        """A turn's tools, then its delegation, then its consultation; (outcome, history)."""
        for step in turn.tools:
            if not (yield from self._tool(st, role, step)):
                return DEADLINE, history
        if turn.delegate is not None:
            outcome, history = yield from self._delegate(st, turn, turn.delegate, history)
            if outcome != OK:
                return outcome, history
        if turn.consult is not None:
            outcome = yield from self._consult(st, turn.consult)
            if outcome != OK:
                return outcome, history
        return OK, history

    def _capped(self, tokens: int, endpoint: str) -> int:
        """A request's output under the run's token cap on that endpoint (live: ``min``)."""
        b = self.w.profile.behaviour
        cap = b.local_max_tokens if endpoint == LOCAL_ENDPOINT else b.cloud_max_tokens
        return tokens if cap is None else min(tokens, cap)

    def _local_call(
        self,
        st: TaskState,
        role: SimRole,
        conv_key: object,
        sys_key: object,
        sys_tokens: int,
        prompt: int,
        output: int,
    ) -> Generator[simpy.Event, Any, LocalRequest | None]:
        w = self.w
        assert w.server is not None, "a local turn in an architecture without a local server"
        t0 = w.env.now
        req = yield from self._llama_request(
            st, w.server, "slot", conv_key, sys_key, sys_tokens, prompt, output
        )
        if req is None:
            return None
        figures = req.call_figures(t0, w.env.now)
        st.record.model_call(w.labels[role], t0, figures.pop("total_s"), **figures)
        return req

    def _harness_gap(self, st: TaskState) -> Generator[simpy.Event, Any, bool]:
        """The harness's own time before a model request (sizing it, the proxy): a wait whose
        CPU part runs on the shared cores, so it stretches when they are busy."""
        w = self.w
        b = w.profile.behaviour
        factor = st.jitter.factor(b.turn_gap_cv)
        gap = b.turn_gap_s * factor
        cpu_s = min(b.turn_gap_cpu_s * factor, gap)
        if cpu_s > 0:
            ev = w.cpu.run(cpu_s, 1.0)
            st.current = ("cpu", None, ev)
            yield ev
            if st.expired:
                return False
        rest = gap - cpu_s
        if rest > 0:
            yield self._sleep(st, rest)
        return not st.expired

    def _llama_request(
        self,
        st: TaskState,
        server: LocalServer,
        kind: str,
        conv_key: object,
        sys_key: object,
        sys_tokens: int,
        prompt: int,
        output: int,
    ) -> Generator[simpy.Event, Any, LocalRequest | None]:
        """One request to a llama-server entity (the local server, ``kind`` "slot", or the cloud
        stand-in, "standin"), after the client's request overhead: the request as the server
        answered it (None: the deadline came first)."""
        client = self.w.profile.server
        overhead = client.request_overhead_s * st.jitter.factor(client.request_overhead_cv)
        if overhead > 0:
            yield self._sleep(st, overhead)
            if st.expired:
                return None
        req = server.submit(conv_key, sys_key, sys_tokens, prompt, output)
        st.current = (kind, req, req.done)
        yield req.done
        return None if st.expired else req

    def _cloud_call(
        self,
        st: TaskState,
        role: SimRole,
        prompt: int,
        output: int,
        previous_prompt: int,
        sys_tokens: int,
        conv_key: object = None,
        sys_key: object = None,
    ) -> Proc:
        """One cloud call, recorded; OK, DEADLINE, or CLOUD_CONTEXT where the stand-in refused
        it for context (a prompt beyond its slot, or a reply cut at the slot's end): both live
        agents end on a failed model call (live/replay.py, live/agents/model_agent.py)."""
        w = self.w
        t0 = w.env.now
        output = self._capped(output, Endpoint.CLOUD.value)
        prices = w.profile.cloud.prices
        if w.cloud_server is not None:
            self._draw_exposure(st, t0)
            key = conv_key if conv_key is not None else (self.task.task, self.attempt, role, st.calls)
            standin_sys = (AgentLabel.CLOUD.endpoint, sys_key)
            req = yield from self._llama_request(
                st, w.cloud_server, "standin", key, standin_sys, sys_tokens, prompt, output
            )
            if req is None:
                return DEADLINE
            figures = req.call_figures(t0, w.env.now)
            cost = 0.0 if req.client_error_class else prices.cost(prompt, req.cached, req.completion_tokens)
            st.record.model_call(w.labels[role], t0, figures.pop("total_s"), cost_usd=cost, **figures)
            return CLOUD_CONTEXT if req.client_error_class else OK
        reply = w.cloud.call(st.rng, prompt, output, previous_prompt, sys_tokens)
        self._draw_exposure(st, t0)
        yield self._sleep(st, reply.total_s)
        if st.expired:
            return DEADLINE
        st.record.model_call(
            w.labels[role],
            t0,
            reply.total_s,
            ttft_s=reply.ttft_s,
            prompt_tokens=prompt,
            cached_tokens=reply.cached_tokens,
            completion_tokens=output,
            output_tok_s=output / (reply.total_s - reply.ttft_s) if reply.total_s > reply.ttft_s else None,
            finish_reason="stop",
            status_code=200,
            cost_usd=reply.cost_usd,
        )
        return OK

    def _draw_exposure(self, st: TaskState, t: float) -> None:
        """Which sensitive items reach the cloud: drawn once, at the task's first cloud input."""
        if st.exposure_drawn:
            return
        st.exposure_drawn = True
        w = self.w
        p = w.profile.behaviour.exposure_p.get(w.arch, 0.0)
        for i in range(self.task.sensitive_items):
            if st.rng.random() < p:
                st.record.exposure(f"item-{i + 1}", t)

    def _consult(self, st: TaskState, consult: Turn) -> Proc:
        t0 = self.w.env.now
        prefix = self.w.profile.cloud.consult_prefix_tokens
        called = yield from self._cloud_call(
            st,
            SimRole.CONSULT,
            consult.prompt_tokens_added,
            consult.output_tokens,
            0,
            prefix,
            None,
            (self.w.arch, SimRole.CONSULT) if prefix > 0 else None,
        )
        lead, consultant = self.w.labels[SimRole.LEAD], self.w.labels[SimRole.CONSULT]
        st.record.message(
            MessageKind.CONSULT,
            lead,
            consultant,
            t0,
            self.w.env.now,
            consult.prompt_tokens_added,
            consult.output_tokens,
            called == OK,
        )
        # a failed consultation is reported to the lead, which goes on (live/replay.py)
        return DEADLINE if called == DEADLINE else OK

    def _delegate(
        self, st: TaskState, lead_turn: Turn, sub: Trajectory, lead_history: int
    ) -> Generator[simpy.Event, Any, tuple[Outcome, int]]:
        """HCL: run the sub-agent; returns (outcome, the lead's history afterwards).

        A failed sub-agent reaches the cloud lead as a generic failure (its report); the lead
        then takes one more turn to write a new delegation (``hcl_redelegate_p``, at most
        ``hcl_redelegate_max`` times) and the sub-agent resumes at the turn that failed, as the
        live replay agent does: a persistent one (the paper's) with the history it kept, so a
        context error tends to recur until the lead stops or the deadline passes; a fresh one
        with a new history. Otherwise the lead gives up on the delegated work.
        """
        failures = 0
        progress = 0
        report = sub.turns[-1].output_tokens if sub.turns else 0
        instruction = sub.turns[0].prompt_tokens_added if sub.turns else 0
        while True:
            t0 = self.w.env.now
            st.failed_turn = None
            # one conversation (and prefix-cache key) for a persistent sub-agent, else one each
            conv = ("sub", 0) if self.w.persistent_sub else ("sub", st.calls)
            outcome = yield from self._agent(st, sub, SimRole.SUB, conv, start=progress)
            st.record.message(
                MessageKind.DELEGATE,
                self.w.labels[SimRole.LEAD],
                self.w.labels[SimRole.SUB],
                t0,
                self.w.env.now,
                instruction,
                report,
                outcome == OK,
            )
            self._draw_exposure(st, self.w.env.now)
            if outcome in (OK, DEADLINE):
                return outcome, lead_history
            failures += 1
            if not redelegates(st.rng, self.w.profile.behaviour, failures):
                st.delegation_abandoned = True
                return OK, lead_history
            progress = st.failed_turn if st.failed_turn is not None else progress
            prompt = lead_history + FAILURE_REPORT_TOKENS
            lead_conv = self._conv_key(("lead", 0))
            called = yield from self._cloud_call(
                st,
                SimRole.LEAD,
                prompt,
                lead_turn.output_tokens,
                lead_history,
                0,
                lead_conv,
                (self.w.arch, SimRole.LEAD),
            )
            if called != OK:
                return called, lead_history
            lead_history = prompt + lead_turn.output_tokens

    def _tool(self, st: TaskState, role: SimRole, step: ToolStep) -> Generator[simpy.Event, Any, bool]:
        w = self.w
        tp = w.profile.tools
        t0 = w.env.now
        recorded_wall, recorded_cpu = step.wall_s, step.cpu_s
        if recorded_wall <= 0 and recorded_cpu <= 0 and step.tool in tp.wall_s_by_tool:
            recorded_wall = tp.wall_s_by_tool[step.tool]  # a synthesised step: the fitted time
            recorded_cpu = tp.cpu_s_by_tool.get(step.tool, 0.0)
        scale = tp.wall_scale * st.jitter.factor(tp.wall_cv_by_tool.get(step.tool, 0.0))
        wall = recorded_wall * scale
        cpu_s = recorded_cpu * scale if recorded_cpu > 0 else wall * tp.default_cpu_fraction
        share = tp.parallel_share_by_category.get(self.task.category, 0.0)
        group = None if tp.own_sched_group else HARNESS  # None: a scheduling group of its own
        if wall <= 0 and cpu_s <= 0:
            ev = self._sleep(st, 0.0)
        elif cpu_s <= 1e-6 * max(1.0, wall):  # no CPU to speak of: it only waits
            ev = self._sleep(st, wall)
        elif share > 0:  # multi-threaded: computes for cpu_s on its share of the cores
            computing = min(cpu_s, wall)
            if wall > computing:
                yield self._sleep(st, wall - computing)
                if st.expired:
                    return False
            cores = max(1.0, share * w.cpu.cores)
            cpu_s = computing * cores
            ev = w.cpu.run(cpu_s, cores, group)
            st.current = ("cpu", None, ev)
        else:
            demand = min(tp.max_cores_per_tool, cpu_s / wall) if wall > 0 else tp.max_cores_per_tool
            ev = w.cpu.run(cpu_s, demand, group)
            st.current = ("cpu", None, ev)
        yield ev
        if st.expired:
            return False
        st.record.tool_call(
            w.labels[role], step.tool, t0, w.env.now - t0, cpu_s, step.output_tokens * BYTES_PER_TOKEN
        )
        return True


__all__ = ["CLOUD_CONTEXT", "CONTEXT", "DEADLINE", "OK", "Outcome", "SimWorld", "TaskAgent", "TaskState"]
