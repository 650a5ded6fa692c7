"""``agbench tasks``: list, check and import tasks and suites."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from agbench.cli.app import main, one_line_errors
from agbench.cli.build_network import build_network_option
from agbench.config import SANDBOX_BACKENDS
from agbench.errors import AgbenchError


@main.group()
def tasks() -> None:
    """The task suite."""


@tasks.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--category", default=None, help="Only this category.")
@one_line_errors
def tasks_list(as_json: bool, category: str | None) -> None:
    """Every suite and its tasks; a bad task.toml is reported without hiding the others."""
    from agbench.suites.registry import discover_suites
    from agbench.task import CATEGORIES, suite_root

    if category is not None and category not in CATEGORIES:
        raise AgbenchError(f"unknown category {category!r} (one of {', '.join(CATEGORIES)})")
    suites = discover_suites(suite_root())
    rows = [(s, t) for s in suites for t in s.tasks if category is None or t.category == category]
    if as_json:
        out = [
            {
                "id": t.id,
                "suite": s.id,
                "category": t.category,
                "difficulty": t.difficulty,
                "resources": list(t.resources),
                "sensitive_items": [x.item for x in t.sensitive_items],
            }
            for s, t in rows
        ]
        click.echo(json.dumps(out, indent=1))
    else:
        for s in suites:
            if s.check is None and not s.tasks:
                continue  # a task root holding only suites
            state = (
                "ok"
                if s.manifest_ok
                else ("no manifest" if s.check is None else "failed_manifest_validation")
            )
            click.echo(f"suite {s.id}: {len(s.tasks)} tasks, manifest {state}")
        for s, t in rows:
            click.echo(f"{t.id:40s} {t.category:12s} {t.difficulty:7s} {','.join(t.resources):14s} {s.id}")
    for s in suites:
        if s.check is not None and not s.check.ok:
            click.echo(f"suite {s.id}: {'; '.join(s.check.problems)}", err=True)
        for problem in s.task_errors:
            click.echo(f"skipped: {problem}", err=True)
    tasks_ = [t for _, t in rows]
    click.echo(
        f"{len(tasks_)} tasks, {sum(len(t.sensitive_items) for t in tasks_)} sensitive items", err=True
    )


@tasks.command("check")
@build_network_option
@click.option("--backend", type=click.Choice(SANDBOX_BACKENDS), default="bwrap", show_default=True)
@click.option("--suite", "suite_ids", multiple=True, help="Only the tasks of this suite (repeatable).")
@click.argument("ids", nargs=-1)
@one_line_errors
def tasks_check(backend: str, suite_ids: tuple[str, ...], ids: tuple[str, ...]) -> None:
    """Oracle and paraphrased answers must pass; null agent and adversarial cases must fail."""
    from agbench.live.taskcheck import check_tasks, exit_code, summary_line
    from agbench.suites.registry import discover_suites, select_suites
    from agbench.task import select_tasks, suite_root

    suites = discover_suites(suite_root())
    if suite_ids:
        suites = select_suites(suites, suite_ids)
    elif not ids:
        suites = suites[:1]  # the built-in suite, as before suites existed
    for s in suites:
        for problem in s.task_errors:
            click.echo(f"skipped: {problem}", err=True)
    selected = select_tasks([t for s in suites for t in s.tasks], ids=list(ids) or None, seed=None)
    results = check_tasks(selected, backend)
    for r in results:
        if not r.ok:
            click.echo(f"FAIL {r.task_id}: {r.detail}", err=True)
    click.echo(summary_line(results))
    if exit_code(results):
        sys.exit(1)


@tasks.group("import")
def tasks_import() -> None:
    """Bring tasks of another format into a suite."""


@tasks_import.command("harbor")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--suite", "suite", default=None, help="Suite to import into (default: the first PATH's name).")
@click.option("--category", default="terminal", show_default=True, help="agbench category of the tasks.")
@one_line_errors
def tasks_import_harbor(paths: tuple[Path, ...], suite: str | None, category: str) -> None:
    """Import Harbor / Terminal-Bench 2 task folders (or datasets of them); bad ones are skipped."""
    import re

    from agbench.suites.harbor_import import import_harbor
    from agbench.task import suite_root

    name = suite or re.sub(r"[^a-z0-9._-]+", "-", paths[0].resolve().name.lower()).strip("-")
    report = import_harbor(list(paths), suite_root(), name, category)
    for path in report.imported:
        click.echo(f"imported {path}")
    for problem in report.skipped:
        click.echo(f"skipped: {problem}", err=True)
    if report.manifest_written:
        click.echo(f"wrote {report.folder / 'manifest.json'}")
    click.echo(
        f"suite {report.suite}: {len(report.imported)} imported, {len(report.skipped)} skipped", err=True
    )
    if not report.imported:
        sys.exit(1)
