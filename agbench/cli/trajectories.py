"""``agbench trajectories``: extract a run's behaviour, synthesise trajectories."""

from __future__ import annotations

from pathlib import Path

import click

from agbench.cli.app import main, one_line_errors
from agbench.config import SANDBOX_BACKENDS


@main.group()
def trajectories() -> None:
    """Replayable agent trajectories."""


@trajectories.command("extract")
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True)
@one_line_errors
def trajectories_extract(run_dir: Path, output: Path) -> None:
    """A run's agent behaviour as a replayable trajectory set."""
    from agbench.live.trajectories import extract

    result = extract(run_dir)
    result.save(output)
    click.echo(f"{len(result.trajectories)} trajectories -> {output}")


@trajectories.command("synth")
@click.option("--profile", type=click.Path(path_type=Path), default=None)
@click.option("--backend", type=click.Choice(SANDBOX_BACKENDS), default="bwrap", show_default=True)
@click.option("--limit", type=int, default=None)
@click.option("--task", "task_ids", multiple=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True)
@one_line_errors
def trajectories_synth(
    profile: Path | None, backend: str, limit: int | None, task_ids: tuple[str, ...], seed: int, output: Path
) -> None:
    """Trajectories for our suite from oracles + token profiles."""
    from agbench.live.trajectories import synthesize
    from agbench.task import load_suite, select_tasks

    # The one selection rule (as `agbench sweep` and the simulator), so all pick the same tasks.
    selected = select_tasks(load_suite(), ids=list(task_ids) or None, limit=limit, seed=seed)
    result = synthesize(selected, profile, backend=backend, seed=seed)
    result.save(output)
    click.echo(f"{len(result.trajectories)} trajectories -> {output}")
