"""``agbench load``: open-loop load on a model server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from agbench.cli.app import main, one_line_errors
from agbench.cli.server_options import local_server_options, with_options


@main.command()
@click.option("--local-url", default=None, help="Load this OpenAI-compatible server (default: start one).")
@click.option(
    "--model", default="smollm2-135m", show_default=True, help="Managed model, or the URL's model name."
)
@click.option("--rates", default=None, help="Constant-rate levels, requests/s: 0.2,0.5,1,2.")
@click.option("--poisson", default=None, help="Poisson-rate levels, requests/s: 0.5 or 0.5,1.")
@click.option(
    "--trace", "trace_file", type=click.Path(path_type=Path), default=None, help="Replay this request trace."
)
@click.option(
    "--requests", "n_requests", type=click.IntRange(min=1), default=40, show_default=True, help="Per level."
)
@click.option("--prompt-tokens", default="256", show_default=True, help="N, LO:HI or lognormal:MEDIAN,SIGMA.")
@click.option("--output-tokens", default="32", show_default=True, help="N, LO:HI or lognormal:MEDIAN,SIGMA.")
@click.option(
    "--prefix-tokens", type=click.IntRange(min=0), default=0, show_default=True, help="Shared prefix."
)
@with_options(local_server_options(ctx=8192, parallel=4, threads=2, contract_aliases=True))
@click.option("--api-key-env", default=None, help="Environment variable holding the server's key.")
@click.option("--max-level-s", type=click.FloatRange(min=1), default=600.0, show_default=True)
@click.option("--device", default="this-machine", show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--out", type=click.Path(path_type=Path), default=None, help="The run directory.")
@click.option("--resume", type=click.Path(path_type=Path), default=None, help="Continue this load run.")
@click.option("--quiet", is_flag=True)
@one_line_errors
def load(**kw: Any) -> None:
    """Open-loop load on a model server: latency and throughput against offered load."""
    from agbench.live.load.cli_options import load_options_from_cli
    from agbench.live.load.run import run_load

    options, resume = load_options_from_cli(kw)
    run_dir = run_load(options, resume=resume)
    click.echo(f"run directory: {run_dir}")
    click.echo(f"report: {run_dir / 'summary.html'}")
