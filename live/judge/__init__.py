"""Graders and judges: the runner README's grading methods (``exact``, ``numeric``, ``rubric``,
``task_compliance``), a strict-JSON judge over any OpenAI-compatible endpoint with one repair
turn, the judge provider choice, and the exposure judge that reads cloud-bound payloads.

agbench's own tasks keep their programmatic verifiers (method ``program``); these graders
serve tasks that declare a rubric, answers graded against a key, and the exposure audit.
"""

from agbench.live.judge.client import PARSE_ERROR, TRANSPORT_ERROR, JudgeBackend, JudgeExchange, LLMJudge
from agbench.live.judge.exposure import ExposureJudgement, agreement, judge_exposure
from agbench.live.judge.graders import (
    METHODS,
    Grade,
    grade_exact,
    grade_numeric,
    grade_rubric,
    grade_task_compliance,
)
from agbench.live.judge.mock import MOCK_MODEL, MockJudgeBackend
from agbench.live.judge.providers import (
    JUDGE_KEY_ENV,
    JUDGE_PROVIDERS,
    JudgeConfigError,
    JudgeSettings,
    judge_backend,
    judge_settings,
)

__all__ = [
    "JUDGE_KEY_ENV",
    "JUDGE_PROVIDERS",
    "METHODS",
    "MOCK_MODEL",
    "PARSE_ERROR",
    "TRANSPORT_ERROR",
    "ExposureJudgement",
    "Grade",
    "JudgeBackend",
    "JudgeConfigError",
    "JudgeExchange",
    "JudgeSettings",
    "LLMJudge",
    "MockJudgeBackend",
    "agreement",
    "grade_exact",
    "grade_numeric",
    "grade_rubric",
    "grade_task_compliance",
    "judge_backend",
    "judge_exposure",
    "judge_settings",
]
