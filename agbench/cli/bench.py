"""``agbench bench fidelity``: the simulator's held-out fidelity per reference set, against the
targets, as a command of the one CLI (``bench/fidelity.py`` is the same thing as a script)."""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path

import click

from agbench.cli.app import main, one_line_errors

#: Where a checkout keeps its reference runs (the default of --references).
CHECKOUT_REFERENCES = Path("calibration") / "reference"


@main.group()
def bench() -> None:
    """Measured figures of the project itself (printed, never asserted)."""


@bench.command("fidelity")
@click.argument("runs", nargs=-1, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--references",
    type=click.Path(file_okay=False, path_type=Path),
    default=CHECKOUT_REFERENCES,
    show_default=True,
    help="Folder of the development runs (run, model, load, dev-profile) and test-* sets.",
)
@click.option(
    "--set",
    "which",
    default="all",
    show_default=True,
    help="Which reference sets (without RUNS): all, development, test, or one set's folder "
    "(test-default-t1).",
)
@click.option("--fit", default="1,2", show_default=True, help="Comparison protocol: levels to fit on.")
@click.option(
    "--fit-levels",
    type=click.IntRange(min=1),
    default=2,
    show_default=True,
    help="Load runs: lowest rates fitted.",
)
@click.option(
    "--server-profile",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="With RUNS: their server profile (adds the profile + C = 1 protocol).",
)
@click.option("--draws", type=click.IntRange(min=0), default=10, show_default=True, help="Interval draws.")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Keep each profile and validation.json here.",
)
@click.option("--all-rows", is_flag=True, help="Print the fitted levels' rows too.")
@one_line_errors
def bench_fidelity(
    runs: tuple[Path, ...],
    references: Path,
    which: str,
    fit: str,
    fit_levels: int,
    server_profile: Path | None,
    draws: int,
    out: Path | None,
    all_rows: bool,
) -> None:
    """Fit each reference run's low levels (or its server profile and C = 1), predict the rest,
    and print every held-out figure against its target, development and test sets apart."""
    from agbench.calibration.fidelity import FidelityOptions, ReferenceSet, reference_sets, run_fidelity
    from agbench.config import parse_concurrency
    from agbench.errors import AgbenchError

    if runs:
        sets = [ReferenceSet("named", list(runs), server_profile)]
    elif not references.is_dir():
        raise AgbenchError(f"no reference folder at {references}: name run directories or --references DIR")
    else:
        sets = reference_sets(references, which)
    # the tables say it all; the fit's and validation's own INFO lines would repeat them
    logging.getLogger("agbench.calibration").setLevel(logging.WARNING)
    options = FidelityOptions(
        fit=parse_concurrency(fit), fit_levels=fit_levels, draws=draws, all_rows=all_rows
    )
    with tempfile.TemporaryDirectory() as tmp:
        click.echo(run_fidelity(sets, out or Path(tmp), options))
