"""``agbench serve``, ``agbench parsers`` and ``agbench parse``: the model server and tool-call parsers."""

from __future__ import annotations

import json
import sys

import click

from agbench.cli.app import main, one_line_errors
from agbench.cli.server_options import local_server_options, with_options
from agbench.config import ServerSettings


@main.command()
@click.option("--model", default="smollm2-135m", show_default=True, help="Registry name or a .gguf path.")
@click.option("--port", type=int, default=None, help="Port on 127.0.0.1 (default: a free one).")
@with_options(local_server_options(ctx=4096, parallel=1, threads=2, contract_aliases=True))
@one_line_errors
def serve(
    model: str, port: int | None, parallel: int, ctx: int, kv_unified: bool, threads: int, cpu_strict: bool
) -> None:
    """Run llama.cpp's llama-server in the foreground on 127.0.0.1."""
    from agbench.live.serving import serve_forever

    settings = ServerSettings(
        model=model,
        n_ctx=ctx,
        n_parallel=parallel,
        kv_unified=kv_unified,
        threads=threads,
        cpu_strict=cpu_strict,
    )
    serve_forever(settings, port)


# ---- parsers -----------------------------------------------------------------------------------
@main.command()
def parsers() -> None:
    """Tool-call parser names, one a line."""
    from agbench.live.parsers import parser_names

    for name in parser_names():
        click.echo(name)


@main.command()
@click.option("--parser", "parser_name", default="auto", show_default=True)
@one_line_errors
def parse(parser_name: str) -> None:
    """Tool calls found in a model's text (stdin), as JSON."""
    from agbench.live.parsers import parse_text

    calls = parse_text(sys.stdin.read(), parser_name)
    click.echo(json.dumps([c.to_dict() for c in calls], indent=1))
