"""Whether a run gave a task every capability it needs: the ``full_capability`` of a row.

The README's ``model_score_valid_tasks_only`` counts only rows where the harness provided all
the task requires, so a model is not scored on a task it could not have solved as written.
A task that cannot start at all (a required program absent) is already a setup failure; the
gaps here are the ones a task runs through anyway:

- a tool the task's manifest names that the agent was not given;
- the offline retrieval corpus, for a task that declares the ``network`` resource (its
  ``web_search`` / ``web_fetch`` tools answer from it);
- the task's own environment image (``environment/Dockerfile``, as imported Harbor tasks
  have) when the sandbox backend does not build it and runs the task on the base image.
"""

from __future__ import annotations

from collections.abc import Collection

from agbench.task import Task

RETRIEVAL_TOOLS = ("web_search", "web_fetch")


def missing_capabilities(
    task: Task,
    *,
    tools: Collection[str],
    corpus_available: bool,
    builds_environment_image: bool = False,
) -> list[str]:
    """What the run did not provide of what ``task`` needs (empty: full capability)."""
    missing = [f"tool {name}" for name in task.tools or () if name not in tools]
    if "network" in task.resources and any(t in tools for t in RETRIEVAL_TOOLS) and not corpus_available:
        missing.append("retrieval corpus")
    if task.dockerfile is not None and not builds_environment_image:
        missing.append("environment image (environment/Dockerfile)")
    return missing


__all__ = ["RETRIEVAL_TOOLS", "missing_capabilities"]
