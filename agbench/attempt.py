"""The identity of a task attempt, the agent labels, and the per-attempt counters.

Every trace row (live or simulated) carries *who* produced it: the run, the configuration
(device, architecture, concurrency) and, for attempt-level tables, the task and attempt
number. That identity is spelled once, here: :class:`AttemptKey` builds the identity columns of
every attempt-level record (``key.ids()``), :class:`RunScope` those of run-level samples
(``scope.ids()``), and ``AttemptKey.text``/``AttemptKey.parse`` are the one string form that
journals and the proxy use. The agent labels that appear in ``model_calls.agent``,
``tool_calls.agent`` and ``messages.sender/receiver`` are :class:`AgentLabel`, and the counters
summed over an attempt's rows, turned into its ``task_runs`` row by one function
(:meth:`AttemptCounters.task_run`), are shared by the live recorder and the simulator so the two
halves cannot count differently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agbench.config import Architecture, Configuration
from agbench.records import ModelCall, TaskRun, ToolCall
from agbench.status import Status
from agbench.vocabulary import AgentLabel, Endpoint, ErrorClass, MessageKind


@dataclass(frozen=True)
class RunScope:
    """A run under one configuration: the identity of run-level rows (server/resource samples)."""

    run_id: str
    config: Configuration

    def ids(self) -> dict[str, Any]:
        """The identity columns of a run-level record, as keyword arguments."""
        return {
            "run_id": self.run_id,
            "device": self.config.device,
            "architecture": self.config.architecture.value,
            "concurrency": self.config.concurrency,
        }

    def attempt(self, task: str, attempt: int) -> AttemptKey:
        return AttemptKey(self.run_id, self.config, task, attempt)


@dataclass(frozen=True, order=True)
class AttemptKey:
    """One attempt of one task under one configuration of one run."""

    run_id: str
    config: Configuration
    task: str
    attempt: int

    @classmethod
    def of(
        cls, run_id: str, device: str, architecture: str, concurrency: int, task: str, attempt: int
    ) -> AttemptKey:
        return cls(
            run_id, Configuration(device, Architecture(architecture), int(concurrency)), task, int(attempt)
        )

    @property
    def scope(self) -> RunScope:
        return RunScope(self.run_id, self.config)

    @property
    def pair(self) -> tuple[str, str]:
        """(configuration key, task): what resume counts as done or not."""
        return (self.config.key, self.task)

    def ids(self) -> dict[str, Any]:
        """The identity columns of an attempt-level record, as keyword arguments."""
        return {**self.scope.ids(), "task": self.task, "attempt": self.attempt}

    @property
    def text(self) -> str:
        """The one string form: ``config-key|task|attempt`` (the run is the directory)."""
        return f"{self.config.key}|{self.task}|{self.attempt}"

    @classmethod
    def parse(cls, run_id: str, text: str) -> AttemptKey:
        """Inverse of :attr:`text`; ``ValueError`` on a malformed key."""
        try:
            config_key, task, attempt = text.rsplit("|", 2)
            return cls(run_id, Configuration.from_key(config_key), task, int(attempt))
        except ValueError as exc:
            raise ValueError(f"not an attempt key: {text!r}") from exc


@dataclass
class AttemptCounters:
    """What an attempt's rows add up to: time breakdown, tokens, calls, cost, context errors.

    Fed row by row (:meth:`add_model_call`, :meth:`add_tool_call`) by the live recorder and by
    the simulator alike, then turned into the ``task_runs`` row by :meth:`task_run`.
    """

    local_model_s: float = 0.0
    cloud_model_s: float = 0.0
    tools_s: float = 0.0
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    cloud_prompt_tokens: int = 0
    cloud_cached_tokens: int = 0
    cloud_completion_tokens: int = 0
    cloud_cost_usd: float = 0.0
    cloud_calls: int = 0
    model_calls: int = 0
    tool_calls: int = 0
    local_context_errors: int = 0
    context_errors_by_agent: dict[str, int] = field(default_factory=dict)

    def add_model_wait(self, endpoint: str, seconds: float) -> None:
        if endpoint == Endpoint.CLOUD:
            self.cloud_model_s += seconds
        else:
            self.local_model_s += seconds

    def add_model_call(self, row: ModelCall) -> None:
        """Count one model request (tokens, cost, context errors); the wait is added apart."""
        self.model_calls += 1
        self.prompt_tokens += row.prompt_tokens
        self.cached_tokens += row.cached_tokens
        self.completion_tokens += row.completion_tokens
        if row.endpoint == Endpoint.CLOUD:
            self.cloud_calls += 1
            self.cloud_prompt_tokens += row.prompt_tokens
            self.cloud_cached_tokens += row.cached_tokens
            self.cloud_completion_tokens += row.completion_tokens
            self.cloud_cost_usd += row.cost_usd
        if row.error_class == ErrorClass.CONTEXT_LIMIT:
            self.context_errors_by_agent[row.agent] = self.context_errors_by_agent.get(row.agent, 0) + 1
            if row.endpoint == Endpoint.LOCAL:
                self.local_context_errors += 1

    def add_tool_call(self, row: ToolCall) -> None:
        self.tool_calls += 1

    @property
    def accounted_s(self) -> float:
        return self.local_model_s + self.cloud_model_s + self.tools_s

    def task_run(
        self,
        key: AttemptKey,
        *,
        agent_kind: str,
        category: str,
        difficulty: str,
        t_start: float,
        t_end: float,
        status: Status | str,
        reward: float | None = None,
        reason: str = "",
        sensitive_total: int = 0,
        sensitive_exposed: int = 0,
        local_context_errors: int = 0,
        answer: str = "",
        full_capability: bool = True,
    ) -> TaskRun:
        """The attempt's ``task_runs`` row; ``other_s`` is the wall time no counter explains.

        ``reward`` defaults to 1 for a success and 0 otherwise; ``local_context_errors`` may
        raise the counted figure (an agent that saw a context error the rows do not show).
        """
        status = Status(status)
        wall = t_end - t_start
        return TaskRun(
            **key.ids(),
            agent_kind=agent_kind,
            category=category,
            t_start=t_start,
            t_end=t_end,
            status=status,
            reward=(1.0 if status is Status.SUCCESS else 0.0) if reward is None else reward,
            reason=reason[:2000],
            difficulty=difficulty,
            local_model_s=self.local_model_s,
            cloud_model_s=self.cloud_model_s,
            tools_s=self.tools_s,
            other_s=max(0.0, wall - self.accounted_s),
            prompt_tokens=self.prompt_tokens,
            cached_tokens=self.cached_tokens,
            completion_tokens=self.completion_tokens,
            cloud_prompt_tokens=self.cloud_prompt_tokens,
            cloud_cached_tokens=self.cloud_cached_tokens,
            cloud_completion_tokens=self.cloud_completion_tokens,
            cloud_cost_usd=self.cloud_cost_usd,
            cloud_calls=self.cloud_calls,
            model_calls=self.model_calls,
            tool_calls=self.tool_calls,
            sensitive_total=sensitive_total,
            sensitive_exposed=sensitive_exposed,
            local_context_errors=max(self.local_context_errors, local_context_errors),
            # What the run provided (agbench.capability); a missing required tool never is.
            full_capability=full_capability and status is not Status.FAILED_MISSING_REQUIRED_TOOL,
            answer=answer[:2000],
        )


__all__ = [
    "AgentLabel",
    "AttemptCounters",
    "AttemptKey",
    "Endpoint",
    "ErrorClass",
    "MessageKind",
    "RunScope",
]
