"""``agbench profile-server``: the model server alone, measured before anything is simulated."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from agbench.cli.app import main, one_line_errors
from agbench.errors import AgbenchError


@main.command("profile-server")
@click.option(
    "--model", default="smollm2-135m", show_default=True, help="Managed model, or the URL's model name."
)
@click.option(
    "--local-url", default=None, help="Profile this running llama-server (its settings as given here)."
)
@click.option("--ctx", type=click.IntRange(min=64), default=4096, show_default=True, help="KV cells in all.")
@click.option("--kv-unified", is_flag=True, help="One KV pool shared by the slots.")
@click.option("--threads", type=click.IntRange(min=1), default=1, show_default=True)
@click.option(
    "--cpu-strict",
    is_flag=True,
    help="Keep compute thread i on core i (llama.cpp's --cpu-strict 1), the twin's too: profile a "
    "sweep run with --local-cpu-strict this way.",
)
@click.option("--parallel", type=click.IntRange(min=1), default=4, show_default=True, help="Slots.")
@click.option("--batch", type=click.IntRange(min=16), default=512, show_default=True, help="n_batch.")
@click.option("--repeats", type=click.IntRange(min=1), default=2, show_default=True, help="Per grid point.")
@click.option(
    "--quick",
    is_flag=True,
    help="The smallest grid: batch 1, 2, 4 and --parallel, contexts to 256 tokens, one background "
    "size (a smoke test: a sweep's range is left to extrapolation).",
)
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Writes OUT/server_profile.toml.")
@click.option(
    "--refit",
    type=click.Path(path_type=Path),
    default=None,
    help="Measure nothing: fit this server_profile.toml again from the calls recorded beside it.",
)
@click.option(
    "--resume",
    is_flag=True,
    help="Finish the profile a killed or failed session left in OUT: its finished probes are "
    "kept, the rest run (same options, same boot).",
)
@click.option("--quiet", is_flag=True)
@one_line_errors
def profile_server(**kw: Any) -> None:
    """Measure the server alone: decode by batch and context, prefill by length, context and
    cells other sequences hold, prompt-cache restore, and the slowdown with a core busy."""
    from agbench.calibration.server_profile import refit_server_profile, write_server_profile
    from agbench.config import ServerSettings
    from agbench.live.load.profile import ProfileOptions
    from agbench.live.load.profile_run import run_profile
    from agbench.load import SERVER_PROFILE_FILE

    if kw["refit"] is not None:
        if kw["resume"]:
            raise AgbenchError("--refit measures nothing: it cannot --resume a profile")
        target = kw["out"] / SERVER_PROFILE_FILE
        if target.exists():  # the fit it holds (in place: the one being refitted) is kept
            raise AgbenchError(f"{target} exists; give --refit another --out")
        click.echo(f"server profile: {refit_server_profile(kw['refit'], target)}")
        return

    server = ServerSettings(
        model=kw["model"],
        n_ctx=kw["ctx"],
        n_parallel=kw["parallel"],
        kv_unified=kw["kv_unified"],
        threads=kw["threads"],
        cpu_strict=kw["cpu_strict"],
        batch_size=kw["batch"],
        ubatch_size=kw["batch"],
    )
    options = ProfileOptions(
        out=kw["out"],
        server=server,
        local_url=kw["local_url"],
        model=kw["model"],
        quick=kw["quick"],
        repeats=kw["repeats"],
        quiet=kw["quiet"],
        resume=kw["resume"],
    )
    calls, meta, progress = run_profile(options)
    click.echo(f"server profile: {write_server_profile(calls, meta, options.out / SERVER_PROFILE_FILE)}")
    progress.remove()
