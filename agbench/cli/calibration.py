"""``agbench calibrate`` and ``agbench validate``: fit a profile from live (or load) runs and check it on held-out ones."""

from __future__ import annotations

import math
from pathlib import Path

import click

from agbench.cli.app import main, one_line_errors
from agbench.config import parse_concurrency
from agbench.errors import AgbenchError
from agbench.run_meta import is_load_run


@main.command()
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True)
@click.option("--fit-concurrency", default=None, help="Fit only on these levels, e.g. 1,2 (default: all).")
@click.option(
    "--fit-levels",
    type=click.IntRange(min=1),
    default=None,
    help="Load runs: fit on this many lowest-rate levels (default 2).",
)
@click.option(
    "--server-profile",
    type=click.Path(path_type=Path),
    default=None,
    help="Server rates from this server_profile.toml (agbench profile-server); the runs give behaviour.",
)
@click.option(
    "--noise-floor",
    type=click.Path(path_type=Path),
    default=None,
    help="The least an interval is widened to: a file of agbench noise-floor (default: the one "
    "agbench ships, measured on its development repeats).",
)
@click.option("--no-noise-floor", is_flag=True, help="Intervals as drawn, not widened to any noise floor.")
@click.option(
    "--held-out-error",
    type=click.Path(path_type=Path),
    default=None,
    help="The least a band at a level the fit did not see is widened to: a file of agbench "
    "held-out-error (default: the one agbench ships, measured on its development recordings).",
)
@click.option(
    "--no-held-out-error", is_flag=True, help="Held-out levels' bands not widened to any held-out error."
)
@one_line_errors
def calibrate(
    run_dirs: tuple[Path, ...],
    output: Path,
    fit_concurrency: str | None,
    fit_levels: int | None,
    server_profile: Path | None,
    noise_floor: Path | None,
    no_noise_floor: bool,
    held_out_error: Path | None,
    no_held_out_error: bool,
) -> None:
    """Fit a simulator profile from live runs (or from one load run's lowest-rate levels)."""
    if len(run_dirs) == 1 and is_load_run(run_dirs[0]):
        from agbench.calibration.load_fit import calibrate_load

        sweep_only = {
            "--fit-concurrency": fit_concurrency is not None,
            "--server-profile": server_profile is not None,
            "--noise-floor": noise_floor is not None or no_noise_floor,
            "--held-out-error": held_out_error is not None or no_held_out_error,
        }
        given = [flag for flag, on in sweep_only.items() if on]
        if given:  # a load run's fit takes none of them: say so rather than drop them
            raise AgbenchError(
                f"{run_dirs[0]} is a load run: {', '.join(given)} "
                f"{'applies' if len(given) == 1 else 'apply'} to agent sweeps "
                "(a load run takes --fit-levels)"
            )
        calibrate_load(run_dirs[0], output, 2 if fit_levels is None else fit_levels)
        click.echo(f"profile: {output}")
        return
    if fit_levels is not None:
        raise AgbenchError("--fit-levels applies to a load run; for sweeps use --fit-concurrency")
    from agbench.calibration import calibrate as fit

    if no_noise_floor and noise_floor is not None:
        raise click.UsageError("--noise-floor and --no-noise-floor exclude each other")
    if no_held_out_error and held_out_error is not None:
        raise click.UsageError("--held-out-error and --no-held-out-error exclude each other")
    fit(
        list(run_dirs),
        output,
        concurrency=parse_concurrency(fit_concurrency) if fit_concurrency else None,
        server_profile=server_profile,
        noise_floor=None if no_noise_floor else (noise_floor or "shipped"),
        held_out_error=None if no_held_out_error else (held_out_error or "shipped"),
    )
    click.echo(f"profile: {output}")


@main.command("noise-floor")
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True)
@one_line_errors
def noise_floor(run_dirs: tuple[Path, ...], output: Path) -> None:
    """How far two live recordings of one sweep land apart, per figure: RUN_DIRS are pairs
    (A B [C D ...]), each the same sweep recorded twice; writes the floor agbench calibrate
    --noise-floor takes."""
    from agbench.calibration.noise_floor import Z90, measure_runs, write

    floor = measure_runs(run_dirs)
    write(floor, output, "agbench noise-floor " + " ".join(str(d) for d in run_dirs))
    for key, sigma in floor["sigma"].items():
        click.echo(
            f"{key:32s} sigma {sigma:.3f}  (90 % band at least x/ {math.exp(Z90 * sigma):.3f}, {floor['rows'][key]} rows)"
        )
    click.echo(f"noise floor: {output}")


@main.command("held-out-error")
@click.argument("reports", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True)
@one_line_errors
def held_out_error(reports: tuple[Path, ...], output: Path) -> None:
    """How far the simulator landed from live runs at levels it was not fitted on, per figure:
    REPORTS are validation.json files of agbench validate --draws on recordings of your own;
    writes the file agbench calibrate --held-out-error takes."""
    from agbench.calibration.held_out_error import measure_files, write

    measured = measure_files(reports)
    write(measured, output, "agbench held-out-error " + " ".join(str(p) for p in reports))
    for key, reach in measured["reach"].items():
        click.echo(
            f"{key:32s} 90 % of held-out rows within x/ {math.exp(reach):.3f} ({measured['rows'][key]} rows)"
        )
    click.echo(f"held-out error: {output}")


@main.command()
@click.option(
    "--profile",
    "--calibration",
    "profile",
    type=click.Path(path_type=Path),
    required=True,
    help="The calibrated profile (PROFILE.toml from agbench calibrate).",
)
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), default=Path("."), show_default=True)
@click.option(
    "--draws",
    type=click.IntRange(min=0),
    default=None,
    help="Repeat over this many draws of the server profile's rates, CPU speeds and timing "
    "jitter: 90% intervals, their coverage, the Brier score; each row then scores the draws' "
    "median. Default: 20 where the profile was calibrated on a server profile, else 0.",
)
@one_line_errors
def validate(profile: Path, run_dirs: tuple[Path, ...], out: Path, draws: int | None) -> None:
    """Simulated vs live errors per metric; writes OUT/validation.json."""
    if len(run_dirs) == 1 and is_load_run(run_dirs[0]):
        from agbench.calibration.load_fit import validate_load

        click.echo(f"validation: {validate_load(profile, run_dirs[0], out)}")
        return
    from agbench.calibration import validate as check

    path = check(profile, list(run_dirs), out, draws=draws)
    click.echo(f"validation: {path}")
