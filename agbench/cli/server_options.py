"""The managed llama-server's settings as command-line options, declared once for every command
that starts one (``run``, ``sweep``, ``serve``, ``load``).

One flag name has one meaning everywhere (``--local-ctx``, ``--local-parallel``,
``--local-kv-unified``, ``--local-threads``, ``--local-cpu-strict``); what differs between
commands is only the defaults, and whether the contract's short spellings (``--ctx``,
``--parallel``, ``--kv-unified``, ``--threads``, ``--cpu-strict``, which ``serve`` and ``load``
accept) are aliases. With the aliases a command receives the values under the short names
(``ctx``, ``parallel``, ``kv_unified``, ``threads``, ``cpu_strict``), else under the long ones
(``local_ctx``, ...). A default of None leaves the setting to the command (``run``/``sweep``
size the server per concurrency level).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from agbench.cli.app import F


def local_server_options(
    *, ctx: int | None, parallel: int | None, threads: int | None, contract_aliases: bool
) -> list[Callable[[F], F]]:
    """The five ``--local-*`` options, with these defaults, in the order ``--help`` shows them."""

    def option(name: str, help_text: str, **kw: Any) -> Callable[[F], F]:
        short = name.removeprefix("local-")
        if contract_aliases:
            spellings: tuple[str, ...] = (f"--{name}", f"--{short}", short.replace("-", "_"))
        else:
            spellings = (f"--{name}",)
        if kw.get("default") is not None:
            kw["show_default"] = True
        made: Callable[[F], F] = click.option(*spellings, help=help_text, **kw)
        return made

    return [
        option(
            "local-parallel",
            "Slots of the managed server" + (" (default: the concurrency)." if parallel is None else "."),
            type=click.IntRange(min=1),
            default=parallel,
        ),
        option(
            "local-ctx",
            "Total KV tokens of the managed server (all slots together).",
            type=click.IntRange(min=64),
            default=ctx,
        ),
        option("local-kv-unified", "One KV pool shared by all slots of the managed server.", is_flag=True),
        option(
            "local-threads", "CPU threads of the managed server.", type=click.IntRange(min=1), default=threads
        ),
        option(
            "local-cpu-strict",
            "Keep compute thread i on core i (llama.cpp's --cpu-strict 1): two managed servers "
            "sharing too few cores then never stack one server's threads on one core.",
            is_flag=True,
        ),
    ]


def with_options(options: list[Callable[[F], F]]) -> Callable[[F], F]:
    """One decorator applying ``options`` so that ``--help`` lists them in the order given."""

    def apply(func: F) -> F:
        for add in reversed(options):
            func = add(func)
        return func

    return apply


__all__ = ["local_server_options", "with_options"]
