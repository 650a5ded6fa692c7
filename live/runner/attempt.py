"""One task attempt of a live sweep: sandbox, agent, verifier, and its ``task_runs`` row.

Each attempt gets a fresh sandbox, its agent under the configuration's architecture, then the
verifier. Its rows go into its own journal (``RunStore.attempt_writer``) through an
:class:`~agbench.live.agents.base.AttemptRecorder`, whose counters become the ``task_runs``
row through the core's ``AttemptCounters.task_run`` (as in the simulator). An attempt always
ends with that row: ``interrupted`` when the sweep is stopped or a managed server dies under
it (then it is not the agent's result, and a resume runs it again).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import shutil
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from agbench.attempt import AgentLabel, AttemptKey, Endpoint
from agbench.errors import AgbenchError
from agbench.live.agents.base import Agent, AgentContext, AgentOutcome, AttemptRecorder, ChatBackend
from agbench.live.runner.endpoints import EndpointManager, Endpoints
from agbench.live.runner.options import MAX_REQUEST_S, ServerDied, SweepOptions
from agbench.records import TaskRun
from agbench.status import Status
from agbench.store import RunStore
from agbench.task import Task, task_deadline_s

if TYPE_CHECKING:
    from agbench.live.providers import ChatClient
    from agbench.live.proxy import CallRecord
    from agbench.live.sandbox import Sandbox

log = logging.getLogger("agbench.live.runner")

Verdict = tuple[Status, float, str, AgentOutcome | None]  # status, reward, reason, the agent's outcome


class AttemptRunner:
    """Runs attempts for a sweep and routes the proxy's measured calls to their recorders."""

    def __init__(
        self,
        options: SweepOptions,
        store: RunStore,
        agent: Agent,
        endpoints: EndpointManager,
        sandbox_root: Path,
        corpus_dir: Path,
        on_row: Callable[[TaskRun], None],
    ) -> None:
        self.options = options
        self.store = store
        self.agent = agent
        self.endpoints = endpoints
        self.sandbox_root = sandbox_root
        self.corpus_dir = corpus_dir
        self.on_row = on_row  # every task_runs row, interrupted ones included
        self.recorders: dict[str, AttemptRecorder] = {}  # proxy token -> the attempt's recorder

    def on_call(self, record: CallRecord) -> None:
        """The proxy measured a call: its rows go into the attempt's journal."""
        recorder = self.recorders.get(record.token)
        if recorder is None:
            return
        for row in record.model_calls():
            recorder.model_call(row)
        for exposure in record.exposures:
            recorder.exposure(exposure)

    def _backend_factory(
        self, key: AttemptKey, eps: Endpoints, token: str | None, time_limit: float, clients: list[ChatClient]
    ) -> Callable[[AgentLabel, Endpoint], ChatBackend]:
        from agbench.live.providers import ChatClient

        cache: dict[tuple[AgentLabel, Endpoint], ChatClient] = {}

        def backend_for(agent: AgentLabel, endpoint: Endpoint) -> ChatBackend:
            if (agent, endpoint) not in cache:
                if eps.proxy is None or token is None:
                    raise AgbenchError(f"no {endpoint} model endpoint in configuration {key.config.key}")
                client = ChatClient(
                    eps.proxy.base_url(Endpoint(endpoint).value, token, agent),
                    eps.models[endpoint],
                    endpoint=endpoint,
                    api_key=None,  # the proxy adds the key: it never leaves the harness's memory
                    timeout_s=min(MAX_REQUEST_S, time_limit),
                    max_retries=2,
                )
                cache[(agent, endpoint)] = client
                clients.append(client)
            backend: ChatBackend = cache[(agent, endpoint)]
            return backend

        return backend_for

    async def run(self, key: AttemptKey, task: Task, eps: Endpoints) -> None:
        """Sandbox, agent, verifier; always ends with a ``task_runs`` row (interrupted if stopped).

        Re-raises ``CancelledError`` after writing the row when the sweep was stopped, and
        raises :class:`ServerDied` when a managed server died under the attempt.
        """
        from agbench.live.sandbox import MissingRequiredProgram, SandboxError, create_sandbox

        # The header names the task's category so an attempt cut off by SIGKILL is still
        # reported under it once ``mark_interrupted`` closes it on resume.
        writer = self.store.attempt_writer(
            key, task_info={"category": task.category, "difficulty": task.difficulty}
        )
        recorder = AttemptRecorder(writer, key, self.options.prices)
        time_limit = task_deadline_s(task.time_limit_s, self.options.time_limit)
        t_start = time.time()
        m_start = time.monotonic()
        outcome: AgentOutcome | None = None
        status, reward, reason = Status.INFRASTRUCTURE_ERROR, 0.0, ""
        sandbox: Sandbox | None = None
        clients: list[ChatClient] = []
        token: str | None = None
        interrupted = False
        died: str | None = None
        attempt_dir = (
            self.sandbox_root / f"{uuid.uuid4().hex[:8]}-{re.sub(r'[^A-Za-z0-9._-]+', '_', task.id)}"
        )
        try:
            if eps.proxy is not None:
                token = eps.proxy.register_attempt(key, tuple(item.item for item in task.sensitive_items))
                self.recorders[token] = recorder
            try:
                sandbox = create_sandbox(self.options.backend, task, attempt_dir)
                await sandbox.start()
            except MissingRequiredProgram as exc:
                status, reason, sandbox = Status.FAILED_MISSING_REQUIRED_TOOL, str(exc), None
            except (SandboxError, AgbenchError, OSError) as exc:
                status, reason, sandbox = Status.FAILED_SANDBOX, f"sandbox: {exc}", None
            if sandbox is not None:
                backends = self._backend_factory(key, eps, token, time_limit, clients)
                status, reward, reason, outcome = await self._drive(
                    key, task, sandbox, eps, recorder, time_limit, backends
                )
        except asyncio.CancelledError:
            interrupted = True
            status, reason = Status.INTERRUPTED, "run stopped while the attempt was running"
        finally:
            for client in clients:
                with contextlib.suppress(Exception):
                    await asyncio.shield(client.aclose())
            if sandbox is not None:
                with contextlib.suppress(BaseException):
                    await asyncio.shield(sandbox.destroy())
            shutil.rmtree(attempt_dir, ignore_errors=True)
            exposed = 0
            if token is not None and eps.proxy is not None:
                exposed = len(eps.proxy.exposures_seen(token))
                eps.proxy.unregister_attempt(token)
                self.recorders.pop(token, None)
            died = self.endpoints.dead_server() if status is Status.INFRASTRUCTURE_ERROR else None
            if died is not None:
                # Not this attempt's result: keep it as interrupted so a resume runs it again.
                status, reason = Status.INTERRUPTED, f"{reason}; {died}"
            wall = time.monotonic() - m_start
            row = recorder.counters.task_run(
                key,
                agent_kind=self.options.agent,
                category=task.category,
                difficulty=task.difficulty,
                t_start=t_start,
                t_end=t_start + wall,
                status=status,
                reward=reward,
                reason=reason,
                sensitive_total=len(task.sensitive_items),
                sensitive_exposed=exposed,
                local_context_errors=outcome.local_context_errors if outcome else 0,
                answer=outcome.answer if outcome else "",
            )
            recorder.close(row)
            self.on_row(row)
        if interrupted:
            raise asyncio.CancelledError
        if died is not None:
            raise ServerDied(
                f"{died}; the sweep stopped (continue it with: agbench sweep --resume {self.store.root})"
            )

    async def _drive(
        self,
        key: AttemptKey,
        task: Task,
        sandbox: Sandbox,
        eps: Endpoints,
        recorder: AttemptRecorder,
        time_limit: float,
        backends: Callable[[AgentLabel, Endpoint], ChatBackend],
    ) -> Verdict:
        """Agent, then verifier: (status, reward, reason, the agent's outcome)."""
        from agbench.live.tools import default_tools
        from agbench.live.verification import verify

        ctx = AgentContext(
            task=task,
            architecture=key.config.architecture,
            sandbox=sandbox,
            tools=default_tools(task, self.corpus_dir),
            deadline=time.monotonic() + time_limit,
            seed=self.options.seed,
            server_urls={e.value: url for e, url in eps.direct.items()},
            backends=backends,
            recorder=recorder,
            calls_recorded_by_proxy=True,
            agent_kind=self.options.agent_kind,
            tool_call_parser=self.options.tool_call_parser,
            max_tokens=self.options.max_tokens,
            text_tool_endpoints=frozenset(e.value for e in eps.text_tools),
        )
        try:
            outcome = await asyncio.wait_for(self.agent.run(ctx), timeout=time_limit)
        except TimeoutError:
            outcome = AgentOutcome("", Status.TIMEOUT, f"task deadline of {time_limit:g} s passed")
        except AgbenchError as exc:
            outcome = AgentOutcome("", Status.INFRASTRUCTURE_ERROR, f"{type(exc).__name__}: {exc}")
        except Exception as exc:  # an agent bug must not take the sweep down; it is recorded
            log.exception("%s %s: the agent raised", key.config.key, task.id)
            outcome = AgentOutcome("", Status.EXECUTION_ERROR, f"agent raised {type(exc).__name__}: {exc}")
        if outcome.status is not None:
            return outcome.status, 0.0, outcome.reason, outcome
        try:
            verdict = await verify(sandbox, task, outcome.answer)
        except Exception as exc:
            return Status.FAILED_GRADER, 0.0, f"verifier: {type(exc).__name__}: {exc}", outcome
        return Status(verdict.status), float(verdict.reward), str(verdict.reason), outcome


__all__ = ["AttemptRunner"]
