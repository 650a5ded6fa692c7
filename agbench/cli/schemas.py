"""``agbench schema``: the published JSON Schemas of the files a run directory holds."""

from __future__ import annotations

from pathlib import Path

import click

from agbench.cli.app import main, one_line_errors
from agbench.errors import AgbenchError


@main.command()
@click.option(
    "--write",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Write every schema (summary, validation, run, timeline) into this directory.",
)
@click.option(
    "--check",
    "check_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Exit 1 when this directory's schema files differ from the models.",
)
@click.argument("name", required=False)
@one_line_errors
def schema(directory: Path | None, check_dir: Path | None, name: str | None) -> None:
    """Print a JSON Schema (summary, validation or run; default summary), or write them all."""
    from agbench.results.schemas import schema_text, schemas, write_schemas

    every = schemas()
    if directory is not None:
        for path in write_schemas(directory):
            click.echo(str(path))
        return
    if check_dir is not None:
        stale = [n for n, s in every.items() if _read(check_dir / n) != schema_text(s)]
        for n in stale:
            click.echo(f"stale: {check_dir / n} (regenerate with: agbench schema --write {check_dir})")
        raise SystemExit(1 if stale else 0)
    wanted = f"{name or 'summary'}.schema.json"
    if wanted not in every:
        known = ", ".join(n.removesuffix(".schema.json") for n in every)
        raise AgbenchError(f"unknown schema {name!r} (known: {known})")
    click.echo(schema_text(every[wanted]), nl=False)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None
