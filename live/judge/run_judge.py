"""A live run's judging: the rubric grade of tasks that declare one, the exposure judge over
each attempt's cloud-bound payloads, and ``judgements.jsonl`` that records both per attempt.

The runner calls :meth:`RunJudge.note_call` for every proxied call (it keeps the attempt's
cloud-bound request bodies when ``--exposure-judge`` is on) and :meth:`RunJudge.after_verify`
once the verifier has spoken. A task whose ``task.toml`` has ``rubric = "..."`` is graded by
the judge against it (method ``rubric``), one with ``grading = "task_compliance"`` by the judge
against its instruction; without a judge, or without either, the verifier's verdict stands
(method ``program``). Every attempt that reaches the verifier gets one line in
``judgements.jsonl``: its key, grading method, and the judge's raw text, parsed JSON, usage and
cost where a judge was asked; exposure judgements carry the matcher's items beside the judge's
and their agreement. The report merges the lines into graded_results.jsonl and summary.json.

``same-as-target`` judge calls go through the recording proxy as the attempt's ``harness``
agent, so they are traced like every model call; an ``openai-compatible`` judge is called
directly (its key stays in this process) and ``mock`` answers offline.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agbench.attempt import AgentLabel, AttemptKey, Endpoint
from agbench.config import PriceTable
from agbench.live.exposure import ExposureTracker, payload_parts
from agbench.live.judge.client import TRANSPORT_ERROR, JudgeBackend, LLMJudge
from agbench.live.judge.exposure import agreement, judge_exposure
from agbench.live.judge.graders import RUBRIC, TASK_COMPLIANCE, grade_rubric, grade_task_compliance
from agbench.live.judge.providers import JudgeSettings, judge_backend
from agbench.live.providers.openai_compatible import ChatClient
from agbench.report.judgements import JUDGEMENTS_FILE
from agbench.status import Status
from agbench.task import Task

if TYPE_CHECKING:
    from agbench.live.runner.endpoints import Endpoints

PROGRAM = "program"
Verdict = tuple[Status, float, str]


def rubric_of(task: Task) -> str | None:
    """The published rubric a task's manifest gives (``rubric = "..."`` in task.toml)."""
    rubric = task.metadata.get("rubric")
    return str(rubric).strip() or None if rubric else None


class RunJudge:
    """The run's judge and its judgements log."""

    def __init__(self, settings: JudgeSettings, run_dir: Path, prices: PriceTable | None = None) -> None:
        self.settings = settings
        self.path = run_dir / JUDGEMENTS_FILE
        self.prices = prices if settings.provider == "openai-compatible" else None
        # same-as-target is built per attempt (through the proxy); the others once per run.
        self._shared: JudgeBackend | None = (
            judge_backend(settings) if settings.provider in ("openai-compatible", "mock") else None
        )
        self._payloads: dict[str, list[Any]] = {}  # attempt key text -> cloud-bound request bodies
        self._lock = asyncio.Lock()

    @property
    def enabled(self) -> bool:
        return self.settings.provider != "none"

    def judge_for(
        self, backends: Callable[[AgentLabel, Endpoint], Any], eps: Endpoints | None = None
    ) -> tuple[LLMJudge | None, ChatClient | None]:
        """The judge for one attempt, and a client to close after it (or None).

        same-as-target judges with the configuration's local model through the proxy (traced
        as the ``harness`` agent); a configuration without one (CO) judges with its cloud model,
        called directly so the judge's own payloads never count as the agent's exposure."""
        if self.settings.provider == "same-as-target":
            if eps is None or Endpoint.LOCAL in eps.direct:
                return LLMJudge(backends(AgentLabel.HARNESS, Endpoint.LOCAL)), None
            client = ChatClient(
                eps.direct[Endpoint.CLOUD],
                eps.models.get(Endpoint.CLOUD, ""),
                endpoint=Endpoint.CLOUD,
                api_key=eps.api_keys.get(Endpoint.CLOUD),
                timeout_s=self.settings.timeout_s,
            )
            return LLMJudge(client), client
        if self._shared is not None:
            return LLMJudge(self._shared, prices=self.prices), None
        return None, None

    def note_call(self, key: AttemptKey, endpoint: str, agent: str, body: Any) -> None:
        """Keep an attempt's cloud-bound request bodies for the exposure judge."""
        if self.settings.exposure_judge and endpoint == Endpoint.CLOUD and agent != AgentLabel.HARNESS:
            self._payloads.setdefault(key.text, []).append(body)

    def forget(self, key: AttemptKey) -> None:
        self._payloads.pop(key.text, None)

    async def after_verify(
        self,
        key: AttemptKey,
        task: Task,
        answer: str,
        verdict: Verdict,
        backends: Callable[[AgentLabel, Endpoint], Any],
        eps: Endpoints | None = None,
    ) -> Verdict:
        """The attempt's final verdict (the rubric grade where there is one) and its log line.

        A judge that cannot be built or asked makes a judged row ``failed_grader``
        (``judge_error``), never an attempt crash and never the model's failure."""
        line: dict[str, Any] = {**key.ids(), "grading_method": PROGRAM}
        rubric = rubric_of(task)
        compliance = rubric is None and task.metadata.get("grading") == TASK_COMPLIANCE
        judge: LLMJudge | None = None
        client: ChatClient | None = None
        try:
            judge, client = self.judge_for(backends, eps) if self.enabled else (None, None)
            if judge is not None and (rubric is not None or compliance):
                if rubric is not None:
                    grade = await grade_rubric(judge, task=task.instruction, answer=answer, rubric=rubric)
                else:
                    grade = await grade_task_compliance(judge, task=task.instruction, answer=answer)
                line.update(grade.record())
                line["verifier"] = {
                    "status": verdict[0].value,
                    "reward": verdict[1],
                    "reason": verdict[2][:500],
                }
                verdict = (grade.status, grade.reward, grade.reason)
            if judge is not None and self.settings.exposure_judge:
                line["exposure"] = await self._exposure(key, task, judge)
        except Exception as exc:  # a judge bug or a missing route must not end the sweep
            problem = f"{TRANSPORT_ERROR}: {type(exc).__name__}: {exc}"[:500]
            line["judge_error"] = problem
            if (rubric is not None or compliance) and self.enabled:
                method = RUBRIC if rubric is not None else TASK_COMPLIANCE
                line.update(
                    grading_method=method, status=Status.FAILED_GRADER.value, reward=0.0, reason=problem
                )
                verdict = (Status.FAILED_GRADER, 0.0, problem)
        finally:
            self.forget(key)
            if client is not None:
                await client.aclose()
        await self._write(line)
        return verdict

    async def _exposure(self, key: AttemptKey, task: Task, judge: LLMJudge) -> dict[str, Any]:
        """Judge each cloud-bound payload's new messages; the matcher's items beside the judge's."""
        items = [s.item for s in task.sensitive_items]
        matcher = ExposureTracker(items)
        judged: set[str] = set()
        payloads: list[dict[str, Any]] = []
        seen_parts: set[str] = set()
        for i, body in enumerate(self._payloads.pop(key.text, [])):
            matched = [item for item, _where in matcher.observe(body, float(i))]
            fresh = [text for _where, text in payload_parts(body) if text and text not in seen_parts]
            seen_parts.update(fresh)
            result = await judge_exposure(judge, "\n\n".join(fresh), items) if fresh else None
            if result is not None:
                judged.update(result.items)
            payloads.append({"payload": i, "matcher_new": matched, **(result.record() if result else {})})
        return {
            "matcher_items": sorted(matcher.seen),
            "judge_items": sorted(judged),
            "agreement": agreement(matcher.seen, judged, items),
            "payloads": payloads,
            "judge_errors": sum(1 for p in payloads if p.get("judge_error")),
        }

    async def _write(self, line: dict[str, Any]) -> None:
        text = json.dumps(line, default=str) + "\n"
        async with self._lock:
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(text)

    async def aclose(self) -> None:
        closer = getattr(self._shared, "aclose", None)
        if closer is not None:
            await closer()


__all__ = ["JUDGEMENTS_FILE", "PROGRAM", "RunJudge", "rubric_of"]
