"""The four grading methods of the runner README, each giving a ``Grade`` for one answer.

- ``exact``: deterministic string / option-letter match (``exact.py``);
- ``numeric``: deterministic number match with unit normalisation and tolerance (``numeric.py``);
- ``rubric``: a judge scores the answer against a published rubric;
- ``task_compliance``: a judge scores whether the output satisfies the task as stated (for
  tasks with no answer key).

A judge that cannot be understood or reached makes the grade ``failed_grader`` (reason
``judge_parse_error: ...`` or ``judge_error: ...``): the answer was never graded, so the row
leaves the valid scores instead of counting as the model's failure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agbench.live.judge.client import JudgeExchange, LLMJudge
from agbench.live.judge.exact import exact_match
from agbench.live.judge.numeric import NumberFormatError, parse_quantity, quantities_match
from agbench.live.judge.schema import VERDICT_SCHEMA
from agbench.status import Status

EXACT, NUMERIC, RUBRIC, TASK_COMPLIANCE = "exact", "numeric", "rubric", "task_compliance"
METHODS = (EXACT, NUMERIC, RUBRIC, TASK_COMPLIANCE)
_ANSWER_CHARS = 8000
_GRADER_ROLE = "You are a strict, impartial grader of an AI assistant's work."


@dataclass
class Grade:
    """One graded answer: the method, the outcome status, reward and why; the judge's
    exchange when a judge graded it."""

    method: str
    status: Status
    reward: float
    reason: str
    judge: JudgeExchange | None = None

    def record(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "grading_method": self.method,
            "status": self.status.value,
            "reward": self.reward,
            "reason": self.reason,
        }
        if self.judge is not None:
            out.update(self.judge.record())
        return out


def _verdict(ok: bool, method: str, reason: str) -> Grade:
    return Grade(method, Status.SUCCESS if ok else Status.VERIFICATION_FAILED, 1.0 if ok else 0.0, reason)


def grade_exact(answer: str, expected: str | list[str], *, choices: bool = False) -> Grade:
    ok = exact_match(answer, expected, choices=choices)
    return _verdict(ok, EXACT, "matches the expected answer" if ok else f"expected {expected!r}")


def grade_numeric(
    answer: str, expected: str | float, *, rel_tol: float = 1e-4, abs_tol: float = 1e-9
) -> Grade:
    """The answer's first number against the expected one; no number is the model's failure."""
    want = parse_quantity(str(expected))
    try:
        got = parse_quantity(answer)
    except NumberFormatError:
        return _verdict(False, NUMERIC, "no number in the answer")
    ok = quantities_match(got, want, rel_tol=rel_tol, abs_tol=abs_tol)
    reason = f"{got.value:g} ({got.kind}) vs expected {want.value:g} ({want.kind})"
    return _verdict(ok, NUMERIC, reason)


def _from_judge(method: str, exchange: JudgeExchange) -> Grade:
    if not exchange.ok or exchange.parsed is None:
        return Grade(method, Status.FAILED_GRADER, 0.0, exchange.error, exchange)
    verdict = exchange.parsed
    passed = bool(verdict["pass"])
    reason = f"judge: {str(verdict['reason'])[:400]}"
    status = Status.SUCCESS if passed else Status.VERIFICATION_FAILED
    return Grade(method, status, float(verdict["score"]) if passed else 0.0, reason, exchange)


async def grade_rubric(judge: LLMJudge, *, task: str, answer: str, rubric: str) -> Grade:
    """The judge applies the task's published rubric to the answer."""
    exchange = await judge.ask(
        _GRADER_ROLE,
        "Grade the answer against the rubric. pass is true only if the answer meets every "
        "requirement of the rubric; score is the fraction of the rubric met (0 to 1).",
        {"task": task, "rubric": rubric, "answer": answer[:_ANSWER_CHARS]},
        VERDICT_SCHEMA,
        "verdict",
    )
    return _from_judge(RUBRIC, exchange)


async def grade_task_compliance(judge: LLMJudge, *, task: str, answer: str, outputs: str = "") -> Grade:
    """The judge decides whether the answer (and the files it produced) does what was asked."""
    request = {"task": task, "answer": answer[:_ANSWER_CHARS]}
    if outputs:
        request["outputs"] = outputs[:_ANSWER_CHARS]
    exchange = await judge.ask(
        _GRADER_ROLE,
        "Decide whether the answer satisfies every requirement of the task as stated. pass is "
        "true only if it does; score is the fraction of the requirements met (0 to 1).",
        request,
        VERDICT_SCHEMA,
        "verdict",
    )
    return _from_judge(TASK_COMPLIANCE, exchange)


__all__ = [
    "EXACT",
    "METHODS",
    "NUMERIC",
    "RUBRIC",
    "TASK_COMPLIANCE",
    "Grade",
    "grade_exact",
    "grade_numeric",
    "grade_rubric",
    "grade_task_compliance",
]
