"""What a report says about the suites of a run: each suite's credits and its strict status.

``summary.json``'s ``suites`` list and the report page's credits section come from here for
every suite with a manifest: name, licence, citation, source, and ``strict_status`` (``ok``,
``failed_manifest_validation`` or ``failed_missing_assets``) with the problems found, so a
suite that did not run says why next to the suites that did.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agbench.errors import AgbenchError
from agbench.status import Status
from agbench.suites.assets import check_assets
from agbench.suites.registry import Suite, discover_suites
from agbench.task import Task


def suite_entry(suite: Suite) -> dict[str, Any]:
    """One suite's report entry (credits fields plus its strict status and problems)."""
    check = suite.check
    if check is None:
        return {"id": suite.id, "name": suite.id, "strict_status": "no manifest", "problems": []}
    if check.manifest is None:
        return {
            "id": suite.id,
            "name": suite.id,
            "summary": "manifest validation failed: " + "; ".join(check.problems),
            "strict_status": Status.FAILED_MANIFEST_VALIDATION.value,
            "problems": list(check.problems),
        }
    entry = check.manifest.credits_entry()
    entry["licence"] = entry.pop("license", "")
    entry["reporting_group"] = check.manifest.reporting_group
    problems = [str(p) for p in check_assets(check.manifest)]
    entry["strict_status"] = Status.FAILED_MISSING_ASSETS.value if problems else "ok"
    entry["problems"] = problems
    if problems:
        entry["summary"] = (
            f"{entry.get('summary', '')} Assets failed their checks: {'; '.join(problems)}".strip()
        )
    return entry


def suites_of_tasks(
    root: Path, task_ids: set[str]
) -> tuple[dict[str, tuple[str, Task]], list[dict[str, Any]]]:
    """task id -> (suite id, task) for the run's tasks, and the entries of the suites they are in.
    A placeholder row of a suite none of whose tasks could be read (``<suite>:suite``) counts."""
    try:
        suites = discover_suites(root) if root.is_dir() else []
    except AgbenchError:
        return {}, []
    found: dict[str, tuple[str, Task]] = {}
    used: list[Suite] = []
    for suite in suites:
        hits = [t for t in suite.tasks if t.id in task_ids]
        for task in hits:
            found.setdefault(task.id, (suite.id, task))
        if hits or f"{suite.id}:suite" in task_ids:
            used.append(suite)
    return found, [suite_entry(s) for s in used if s.check is not None]


__all__ = ["suite_entry", "suites_of_tasks"]
