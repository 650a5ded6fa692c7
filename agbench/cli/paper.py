"""``agbench paper fit|check|predict`` and ``agbench images build``: the paper's calibration and
the sandbox image build, as commands of the one CLI instead of module entry points.

The paper commands are the calibration modules' own click commands, imported only when one is
run (the fit pulls in scipy's optimisers and the simulator; ``agbench --help`` stays fast).
"""

from __future__ import annotations

import importlib

import click

from agbench.cli.app import main, one_line_errors

#: subcommand -> the module under agbench.calibration.paper whose ``cli`` it runs
PAPER_COMMANDS = {
    "fit": "Fit the simulator's paper parameters to the paper's published figures.",
    "check": "Check the simulator's paper figures against the paper's (exit 1 on a miss).",
    "predict": "Simulate both paper devices' matrices and print the figures.",
}


class _PaperGroup(click.Group):
    """Subcommands loaded from agbench.calibration.paper.<name>.cli when invoked."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(PAPER_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in PAPER_COMMANDS:
            return None
        module = importlib.import_module(f"agbench.calibration.paper.{cmd_name}")
        command: click.Command = module.cli
        command.help = command.help or PAPER_COMMANDS[cmd_name]
        return command


@main.group(cls=_PaperGroup)
def paper() -> None:
    """The paper's calibration: fit the parameters, check and predict the published figures."""


@main.group()
def images() -> None:
    """Sandbox images: agbench's base root filesystem (bwrap) and Docker image."""


@images.command("build")
@click.option("--docker", is_flag=True, help="Also import the root filesystem into Docker as an image.")
@one_line_errors
def images_build(docker: bool) -> None:
    """Build (or reuse) the cached base root filesystem, and with --docker its Docker image."""
    from agbench.live.sandbox.images import main as build

    status = build(["--docker"] if docker else [])
    if status:
        raise SystemExit(status)
