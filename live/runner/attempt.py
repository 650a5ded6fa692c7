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
from agbench.capability import missing_capabilities
from agbench.errors import AgbenchError
from agbench.live.agents.base import Agent, AgentContext, AgentOutcome, AttemptRecorder, ChatBackend
from agbench.live.judge.run_judge import RunJudge
from agbench.live.launcher.attempt import is_harness_row, run_harness_attempt
from agbench.live.privacy.report_lines import write_guard_line
from agbench.live.providers import ChatClient
from agbench.live.providers.cloud_gate import BudgetExhausted, CloudGate
from agbench.live.runner.endpoints import EndpointManager, Endpoints
from agbench.live.runner.options import ServerDied, SweepOptions, judge_settings_of
from agbench.live.runner.request_settings import shaped
from agbench.live.sandbox import MissingRequiredProgram, SandboxError, create_sandbox
from agbench.live.sandbox.task_image import TaskImageError
from agbench.live.tools import default_tools
from agbench.live.verification import verify
from agbench.records import TaskRun
from agbench.status import Status
from agbench.store import RunStore
from agbench.suites.registry import AttemptSettled, raise_if_blocked
from agbench.task import Task, task_deadline_s

if TYPE_CHECKING:
    from agbench.live.proxy import CallRecord
    from agbench.live.runner.watchdog import ServerWatchdog
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
        # The run's cloud budget and rate limits, shared by every agent of every attempt.
        self.gate = CloudGate(
            max_usd=options.max_cloud_usd,
            rpm=options.cloud_rpm,
            tpm=options.cloud_tpm,
            spent_usd=store_cloud_spend(store) if options.max_cloud_usd is not None else 0.0,
        )
        self.watchdog: ServerWatchdog | None = None  # set by the sweep while a configuration runs
        self.sandbox_limits: dict[str, int] = dict(store.meta().get("sandbox_limits") or {})
        self.judging = RunJudge(judge_settings_of(options), store.root, options.prices)
        if self.judging.enabled:
            store.update_meta(judge=self.judging.settings.public())

    def on_call(self, record: CallRecord) -> None:
        """The proxy measured a call: its rows go into the attempt's journal."""
        recorder = self.recorders.get(record.token)
        rows = record.model_calls()
        for row in rows:
            if row.endpoint == Endpoint.CLOUD:
                self.gate.record_spend(row.cost_usd)
        if recorder is None:
            return
        for row in rows:
            if row.agent == AgentLabel.HARNESS:  # the judge: traced, not counted as the agent's
                recorder.write(row)
            else:
                recorder.model_call(row)
        for exposure in record.exposures:
            recorder.exposure(exposure)
        self.judging.note_call(record.key, record.endpoint, record.agent, record.result.request_body)

    def _backend_factory(
        self, key: AttemptKey, eps: Endpoints, token: str | None, time_limit: float, clients: list[ChatClient]
    ) -> Callable[[AgentLabel, Endpoint], ChatBackend]:

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
                    timeout_s=min(self.options.model_request_timeout, time_limit),
                    max_retries=self.options.retries,
                    gate=self.gate if endpoint is Endpoint.CLOUD and self.gate.active else None,
                )
                cache[(agent, endpoint)] = client
                clients.append(client)
            backend: ChatBackend = cache[(agent, endpoint)]
            if agent == AgentLabel.HARNESS:  # the judge keeps its own settings
                return backend
            return shaped(backend, self.options, Endpoint(endpoint))  # sampling, endpoint cap

        return backend_for

    async def _open_sandbox(
        self, task: Task, eps: Endpoints, token: str | None, attempt_dir: Path
    ) -> tuple[Sandbox | None, tuple[Status, float, str] | None]:
        """The attempt's sandbox, started; or None with the (status, reward, reason) that
        settled the attempt before any agent ran (a blocked suite, an external harness row,
        a missing program, a task image that did not build, a sandbox that did not start)."""

        try:
            raise_if_blocked(task)  # a suite that may not run: its strict status, no sandbox
            if is_harness_row(task):  # an external harness suite: the launcher runs it
                await run_harness_attempt(
                    task,
                    proxy=eps.proxy,
                    token=token,
                    models=eps.models,
                    api_keys=eps.api_keys,
                    out_dir=self.store.root / "harness" / attempt_dir.name,
                    tool_parser=self.options.tool_call_parser,
                    max_tokens=self.options.max_tokens,
                    context_limit=self.options.local_ctx,
                    timeout_s=self.options.external_timeout,
                )
            sandbox = create_sandbox(self.options.backend, task, attempt_dir)
            await sandbox.start()
        except AttemptSettled as exc:
            return None, (exc.status, exc.reward, str(exc))
        except MissingRequiredProgram as exc:
            return None, (Status.FAILED_MISSING_REQUIRED_TOOL, 0.0, str(exc))
        except TaskImageError as exc:  # the task's own Dockerfile did not build
            return None, (Status.FAILED_SETUP, 0.0, f"setup: {exc}")
        except (SandboxError, AgbenchError, OSError) as exc:
            return None, (Status.FAILED_SANDBOX, 0.0, f"sandbox: {exc}")
        return sandbox, None

    async def _server_verdict(
        self, status: Status, reason: str, interrupted: bool, generation: int
    ) -> tuple[Status, str, str | None]:
        """The attempt's status once its servers are accounted for, and the fatal server
        failure if any: an attempt a managed server died or hung under failed for the
        infrastructure's sake, not the agent's (the watchdog restarts the server), and one whose
        server is gone for good is interrupted, so a resume runs it again."""
        if self.watchdog is not None:
            if not interrupted and status not in (Status.SUCCESS, Status.BUDGET_EXHAUSTED):
                revived = await asyncio.shield(self.watchdog.revive_dead())
                if revived is not None or self.watchdog.generation != generation:
                    why = revived or "a managed server was restarted during the attempt"
                    status, reason = Status.INFRASTRUCTURE_ERROR, f"{reason}; {why}"
                if self.watchdog.failure is not None:
                    return Status.INTERRUPTED, f"{reason}; {self.watchdog.failure}", self.watchdog.failure
            return status, reason, None
        if status is Status.INFRASTRUCTURE_ERROR:
            died = self.endpoints.dead_server()
            if died is not None:
                return Status.INTERRUPTED, f"{reason}; {died}", died
        return status, reason, None

    async def run(self, key: AttemptKey, task: Task, eps: Endpoints) -> None:
        """Sandbox, agent, verifier; always ends with a ``task_runs`` row (interrupted if stopped).

        Re-raises ``CancelledError`` after writing the row when the sweep was stopped, and
        raises :class:`ServerDied` when a managed server died under the attempt.
        """
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
        generation = self.watchdog.generation if self.watchdog is not None else 0
        try:
            if self.options.needs_models and key.config.architecture.uses_cloud:
                self.gate.check_budget()  # BudgetExhausted: no cloud call starts once it is spent
            if eps.proxy is not None:
                token = eps.proxy.register_attempt(
                    key,
                    tuple(item.item for item in task.sensitive_items),
                    tuple(item.kind for item in task.sensitive_items),  # the privacy guard's scoring
                )
                self.recorders[token] = recorder
            sandbox, settled = await self._open_sandbox(task, eps, token, attempt_dir)
            if settled is not None:
                status, reward, reason = settled
            if sandbox is not None:
                backends = self._backend_factory(key, eps, token, time_limit, clients)
                status, reward, reason, outcome = await self._drive(
                    key, task, sandbox, eps, recorder, time_limit, backends
                )
        except BudgetExhausted as exc:
            status, reason = Status.BUDGET_EXHAUSTED, str(exc)
        except asyncio.CancelledError:
            interrupted = True
            status, reason = Status.INTERRUPTED, "run stopped while the attempt was running"
        finally:
            retries = await _close_clients(clients)
            if retries:
                reason = f"{reason}; {retries} model request retr{'y' if retries == 1 else 'ies'}"
            if sandbox is not None:
                self._note_limits(sandbox)
                with contextlib.suppress(BaseException):
                    await asyncio.shield(sandbox.destroy())
            self._keep_or_remove_workspace(key, attempt_dir, status, interrupted)
            exposed = 0
            if token is not None and eps.proxy is not None:
                exposed = len(eps.proxy.exposures_seen(token))
                write_guard_line(self.store.root, key, eps.proxy.guard_report(token))  # --privacy-guard
                eps.proxy.unregister_attempt(token)
                self.recorders.pop(token, None)
            status, reason, died = await self._server_verdict(status, reason, interrupted, generation)
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
                full_capability=not self._missing_capabilities(task),
            )
            self.judging.forget(key)
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
        except BudgetExhausted as exc:
            outcome = AgentOutcome("", Status.BUDGET_EXHAUSTED, str(exc))
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
        # A rubric in task.toml is graded by the judge; judgements.jsonl records the method.
        status, reward, reason = await self.judging.after_verify(
            key,
            task,
            outcome.answer,
            (Status(verdict.status), float(verdict.reward), str(verdict.reason)),
            backends,
            eps,
        )
        return status, reward, reason, outcome

    def _missing_capabilities(self, task: Task) -> list[str]:
        """What the run did not give the task of what it needs (agbench.capability)."""

        try:
            tools = [t.name for t in default_tools(task, self.corpus_dir)]
        except AgbenchError:
            return ["tools"]
        # Both sandbox backends build a task's environment/Dockerfile (live/sandbox/task_image.py).
        return missing_capabilities(
            task, tools=tools, corpus_available=self.corpus_dir.is_dir(), builds_environment_image=True
        )

    def _note_limits(self, sandbox: Sandbox) -> None:
        """Count the sandbox limits that took effect (run.json ``sandbox_limits``: line -> attempts)."""
        try:
            line = sandbox.limits_report()
        except Exception:  # a half-started sandbox: nothing took effect worth recording
            return
        self.sandbox_limits[line] = self.sandbox_limits.get(line, 0) + 1
        with contextlib.suppress(Exception):
            self.store.update_meta(sandbox_limits=self.sandbox_limits)

    def _keep_or_remove_workspace(
        self, key: AttemptKey, attempt_dir: Path, status: Status, interrupted: bool
    ) -> None:
        """``--keep-workspaces``: move the attempt's folder into the run directory, or remove it."""
        keep = self.options.keep_workspaces
        if (
            attempt_dir.exists()
            and not interrupted
            and (keep == "all" or (keep == "failed" and status is not Status.SUCCESS))
        ):
            target = workspace_path(self.store.root, key)
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(str(attempt_dir), str(target))
                return
            except OSError as exc:
                log.warning("workspace of %s not kept: %s", key.text, exc)
        shutil.rmtree(attempt_dir, ignore_errors=True)


def workspace_path(run_dir: Path, key: AttemptKey) -> Path:
    """Where ``--keep-workspaces`` keeps an attempt's sandbox folder inside the run directory."""
    safe = re.sub(r"[^A-Za-z0-9._=-]+", "_", f"{key.config.key}-{key.task}-{key.attempt}")
    return run_dir / "workspaces" / safe


def store_cloud_spend(store: RunStore) -> float:
    """The cloud spend of a run's finished attempts (a resumed run's budget counts it)."""
    total = 0.0
    for journal in store.journals():
        if journal.header.get("kind") == "attempt":
            for row in journal.iter_rows(TaskRun.TABLE):
                total += float(row.get("cloud_cost_usd") or 0.0)
    return total


async def _close_clients(clients: list[ChatClient]) -> int:
    """Close an attempt's chat clients (even while it is being cancelled); their retries, summed."""
    retries = 0
    for client in clients:
        retries += client.retries
        with contextlib.suppress(Exception):
            await asyncio.shield(client.aclose())
    return retries


__all__ = ["AttemptRunner", "store_cloud_spend", "workspace_path"]
