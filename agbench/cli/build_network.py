"""``--build-network``: the network per-task image builds get (``default``: the host Docker's;
``none``: offline). One option shared by the commands that build images; it sets the process's
setting (``live/sandbox/build_network.py``) that every builder, in this process or a worker,
reads, so the commands' own signatures stay as they are.
"""

from __future__ import annotations

from typing import Any

import click

from agbench.cli.app import F


def _apply(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if value is not None:
        from agbench.live.sandbox.build_network import set_build_network

        set_build_network(value)  # type: ignore[arg-type]  # click.Choice checked it


def build_network_option(func: F) -> F:
    """Add ``--build-network default|none`` to a command."""
    option: Any = click.option(
        "--build-network",
        type=click.Choice(["default", "none"]),
        default=None,
        expose_value=False,
        callback=_apply,
        help="Network for building per-task images: the host Docker's (default) or none (offline).",
    )
    return option(func)  # type: ignore[no-any-return]
