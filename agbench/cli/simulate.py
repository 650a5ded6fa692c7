"""``agbench sim`` and ``agbench whatif``: the simulator's matrix, open-loop requests and the deployment search."""

from __future__ import annotations

from pathlib import Path

import click

from agbench.cli.app import main, one_line_errors
from agbench.config import parse_architectures, parse_concurrency

_WITH_SCENARIO = "\0scenario"  # ``--explain`` given without a value: explain --scenario's


@main.group(invoke_without_command=True)
@click.option("--scenario", default=None, help="A shipped scenario name or a TOML file.")
@click.option(
    "--explain",
    default=None,
    is_flag=False,
    flag_value=_WITH_SCENARIO,
    metavar="[SCENARIO]",
    help="Print the scenario's (default: --scenario's) tokens/s by batch size with the source of "
    "every number, and exit (as 'agbench sim explain SCENARIO').",
)
@click.option("--archs", default=None, help="Default: the scenario's.")
@click.option("--concurrency", default=None, help="Default: the scenario's.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--out", type=click.Path(path_type=Path), default=None)
@click.option("--ray", default=None, help="Ray address, or 'local' to start one here.")
@click.option(
    "--trajectories", type=click.Path(path_type=Path), default=None, help="Replay this trajectory set."
)
@click.option(
    "--calibration",
    "--profile",
    "profile",
    type=click.Path(path_type=Path),
    default=None,
    help="A calibrated profile (PROFILE.toml from agbench calibrate).",
)
@click.option("--limit", type=int, default=None)
@click.option(
    "--requests",
    "request_trace",
    type=click.Path(path_type=Path),
    default=None,
    help="Open loop: replay this request trace (JSON lines) or a load run's levels (its directory).",
)
@click.option("--rate", default=None, help="Open loop: constant-rate levels, requests/s (0.2,0.5,1).")
@click.option(
    "--load-requests", type=click.IntRange(min=1), default=40, show_default=True, help="With --rate."
)
@click.option(
    "--prompt-tokens", default="256", show_default=True, help="With --rate: N, LO:HI, lognormal:M,S."
)
@click.option("--output-tokens", default="32", show_default=True, help="With --rate.")
@click.option(
    "--draws",
    type=click.IntRange(min=0),
    default=None,
    help="Repeat the simulation over N draws of its uncertain inputs and write a 90 % interval "
    "per figure (summary.json 'intervals'). Default: 20 with a calibrated profile's bootstrap "
    "data, else 0 (off); with a scenario's [uncertainty] ranges, give N to draw them.",
)
@click.option(
    "--fresh-servers",
    is_flag=True,
    help="Start every configuration on servers of its own, empty. Default: the configurations "
    "share servers as a live sweep with these settings would (one level's architectures share "
    "them, and with n_parallel fixed every level shares the local server), each starting from "
    "what the last one on the same server left.",
)
@click.pass_context
@one_line_errors
def sim(
    ctx: click.Context,
    scenario: str | None,
    explain: str | None,
    archs: str | None,
    concurrency: str | None,
    seed: int,
    out: Path | None,
    ray: str | None,
    trajectories: Path | None,
    profile: Path | None,
    limit: int | None,
    request_trace: Path | None,
    rate: str | None,
    load_requests: int,
    prompt_tokens: str,
    output_tokens: str,
    draws: int | None,
    fresh_servers: bool,
) -> None:
    """Simulate a scenario's matrix of architectures × concurrency (or, with --requests or
    --rate, open-loop requests through its server alone)."""
    if ctx.invoked_subcommand is not None:
        return
    if explain is not None:
        if explain == _WITH_SCENARIO and scenario is None:
            raise click.UsageError("give --scenario NAME --explain, or --explain SCENARIO")
        _explain(scenario if explain == _WITH_SCENARIO else explain)
        return
    if scenario is None:
        raise click.UsageError("give --scenario (or: agbench sim explain SCENARIO)")
    if request_trace is not None or rate is not None:
        if draws or fresh_servers:
            raise click.UsageError(
                "--draws and --fresh-servers apply to the architecture x concurrency matrix, not to "
                "--requests/--rate"
            )
        from agbench.load import levels_for_sim
        from agbench.sim.open_loop import run_load_sim
        from agbench.sim.sweep import default_out_dir

        levels = levels_for_sim(request_trace, rate, load_requests, prompt_tokens, output_tokens, seed)
        target = out or default_out_dir("sim-load")
        run_dir = run_load_sim(scenario, levels, target, profile=profile, seed=seed)
        click.echo(f"run directory: {run_dir}")
        click.echo(f"report: {run_dir / 'summary.html'}")
        return
    from agbench.calibration.sim_intervals import run_matrix_with_intervals

    run_dir = run_matrix_with_intervals(
        scenario,
        draws=draws,
        archs=parse_architectures(archs) if archs else None,
        concurrency=parse_concurrency(concurrency) if concurrency else None,
        seed=seed,
        out_dir=out,
        ray=ray,
        trajectories=trajectories,
        profile=profile,
        limit=limit,
        fresh_servers=fresh_servers,
    )
    click.echo(f"run directory: {run_dir}")
    click.echo(f"report: {run_dir / 'summary.html'}")


def _explain(scenario: str | None) -> None:
    from agbench.sim.predictors.explain import render
    from agbench.sim.scenario import load_scenario

    click.echo(render(load_scenario(str(scenario))))


@sim.command("explain")
@click.argument("scenario")
@one_line_errors
def sim_explain(scenario: str) -> None:
    """Print a scenario's tokens/s by batch size with the source of every number."""
    _explain(scenario)


@main.command()
@click.argument("spec")
@click.option("--out", type=click.Path(path_type=Path), default=None, help="Report directory.")
@click.option("--ray", default=None, help="Ray address, or 'local' to start one here.")
@click.option("--workers", type=click.IntRange(min=1), default=None, help="Processes (default: cores).")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Tasks per point.")
@click.option(
    "--draws",
    type=click.IntRange(min=0),
    default=8,
    show_default=True,
    help="Simulate the front again under N draws of each device's uncertain inputs: each "
    "objective's 90 % range, and whether the answer flips inside it (0: off).",
)
@one_line_errors
def whatif(
    spec: str, out: Path | None, ray: str | None, workers: int | None, limit: int | None, draws: int
) -> None:
    """Search deployments (device, model, KV pool, slots, architecture, concurrency) in the
    simulator; print and plot the Pareto front of the spec's objectives."""
    from agbench.sim.sweep import default_out_dir
    from agbench.sim.whatif import search, write_report
    from agbench.sim.whatif.report import front_lines

    result = search(spec, workers=workers, ray=ray, limit=limit, draws=draws)
    target = out or default_out_dir("whatif")
    files = write_report(result, target)
    for line in front_lines(result):
        click.echo(line)
    click.echo(f"report: {files[-1]}")
