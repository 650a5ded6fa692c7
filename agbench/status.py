"""Task-attempt statuses and the failure taxonomy.

Setup statuses are not the model's fault and are excluded from valid scores; ``interrupted``
attempts are kept in traces but never counted as results.
"""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    SUCCESS = "success"
    VERIFICATION_FAILED = "verification_failed"
    CONTEXT_LIMIT = "context_limit"
    EXECUTION_ERROR = "execution_error"
    TIMEOUT = "timeout"
    FAILED_MISSING_ASSETS = "failed_missing_assets"
    FAILED_MISSING_REQUIRED_TOOL = "failed_missing_required_tool"
    FAILED_MANIFEST_VALIDATION = "failed_manifest_validation"
    FAILED_SANDBOX = "failed_sandbox"
    FAILED_SETUP = "failed_setup"  # the task's own environment (its Dockerfile) did not build
    FAILED_GRADER = "failed_grader"
    INFRASTRUCTURE_ERROR = "infrastructure_error"
    BUDGET_EXHAUSTED = "budget_exhausted"  # the run's cloud budget ran out before or during it
    INTERRUPTED = "interrupted"


MODEL_FAILURES = frozenset(
    {Status.VERIFICATION_FAILED, Status.CONTEXT_LIMIT, Status.EXECUTION_ERROR, Status.TIMEOUT}
)
SETUP_FAILURES = frozenset(
    {
        Status.FAILED_MISSING_ASSETS,
        Status.FAILED_MISSING_REQUIRED_TOOL,
        Status.FAILED_MANIFEST_VALIDATION,
        Status.FAILED_SANDBOX,
        Status.FAILED_SETUP,
        Status.FAILED_GRADER,
        Status.INFRASTRUCTURE_ERROR,
        Status.BUDGET_EXHAUSTED,
    }
)
# The README's "valid tasks only" also drops timed-out and invalid-context rows.
INVALID_FOR_VALID_SCORE = SETUP_FAILURES | {Status.TIMEOUT}


def is_result(status: str) -> bool:
    """True for an attempt that counts as a result (everything but ``interrupted``)."""
    return status != Status.INTERRUPTED
